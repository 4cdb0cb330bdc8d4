/**
 * A small, tolerant reader for the one part of a gem's `metadata.gz` (the gemspec as YAML, written
 * by Psych) that the SBOM needs: the `dependencies:` list, each with name, requirement and type.
 * It reads the layout Psych writes, including anchors (`&1`) and aliases (`*1`) on shared
 * Gem::Version objects, and skips whatever it does not recognise.
 */
import type { SbomDependency } from '@hub/runtime';

export const MAX_DEPENDENCIES = 10_000;

function scalar(raw: string): string {
  const s = raw.trim();
  if (s.startsWith('"')) {
    try {
      return JSON.parse(s) as string;
    } catch {
      return s.slice(1, -1);
    }
  }
  if (s.startsWith("'") && s.endsWith("'")) return s.slice(1, -1).replace(/''/g, "'");
  return s;
}

const indent = (line: string): number => line.length - line.trimStart().length;

export function parseGemspecDependencies(yaml: string): SbomDependency[] {
  const lines = yaml.split(/\r?\n/);
  // Gem::Version anchors anywhere in the document: `&1 !ruby/object:Gem::Version` then `version: x`.
  const anchors = new Map<string, string>();
  lines.forEach((l, i) => {
    const a = /&(\S+)\s+!ruby\/object:Gem::Version\s*$/.exec(l);
    const v = a ? /^\s*version:\s*(.+)$/.exec(lines[i + 1] ?? '') : null;
    if (a && v) anchors.set(a[1]!, scalar(v[1]!));
  });
  const start = lines.findIndex((l) => /^dependencies:/.test(l));
  if (start === -1 || /^dependencies:\s*\[\s*\]\s*$/.test(lines[start]!)) return [];

  const out: SbomDependency[] = [];
  let dep: { name?: string; type?: string; reqs: string[]; op?: string } | null = null;
  let section: 'requirement' | 'other' = 'other';
  const flush = () => {
    if (dep?.name && out.length < MAX_DEPENDENCIES)
      out.push({ name: dep.name, range: dep.reqs.join(', ') || '>= 0', scope: dep.type === ':development' ? 'dev' : 'runtime' });
  };
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') continue;
    if (indent(line) === 0 && !line.startsWith('- ')) break; // the next top-level key
    if (indent(line) === 0) {
      flush();
      dep = { reqs: [] };
      section = 'other';
      continue;
    }
    if (!dep) continue;
    const key = indent(line) === 2 ? /^\s*([a-z_]+):\s*(.*)$/.exec(line) : null;
    if (key) {
      section = key[1] === 'requirement' ? 'requirement' : 'other';
      if (key[1] === 'name') dep.name = scalar(key[2]!);
      if (key[1] === 'type') dep.type = key[2]!.trim();
      continue;
    }
    if (section !== 'requirement') continue;
    const op = /^\s*- - (.+)$/.exec(line);
    const alias = /^\s*- \*(\S+)\s*$/.exec(line);
    const version = /^\s*version:\s*(.+)$/.exec(line);
    if (op) dep.op = scalar(op[1]!);
    else if ((alias || version) && dep.op) {
      const v = alias ? anchors.get(alias[1]!) : scalar(version![1]!);
      if (v !== undefined) dep.reqs.push(`${dep.op} ${v}`);
      dep.op = undefined;
    }
  }
  flush();
  return out;
}
