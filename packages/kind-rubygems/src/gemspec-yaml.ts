/**
 * The dependencies of a gem, from its gemspec as YAML (Psych's `metadata.gz`): each with name,
 * requirement and type. The input is hostile: its size is capped before it gets here, and aliases
 * (Psych shares Gem::Version objects through `&1` / `*1`) are capped by `MAX_ALIAS_COUNT`, so a
 * billion-laughs document fails instead of expanding.
 */
import { createRequire } from 'node:module';
import type { SbomDependency } from '@hub/contract';
import type Yaml from 'yaml';

// The YAML parser is loaded with the first gemspec read, not when hub starts (issue 32, idle RSS).
const require = createRequire(import.meta.url);
let yaml: typeof Yaml | undefined;

export const MAX_DEPENDENCIES = 10_000;
/** yaml's measure of alias expansion (resolutions x aliases inside the anchor); real gemspecs stay far below. */
export const MAX_ALIAS_COUNT = 100;

export type Node = Record<string, unknown>;
export const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** A Gem::Version is a map with `version`; older layouts wrote the bare string. */
export const versionText = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : isNode(v) && typeof v.version === 'string' ? v.version : undefined;

export function readSpec(text: string): Node | undefined {
  yaml ??= require('yaml') as typeof Yaml;
  try {
    // failsafe: every scalar is a string, as Psych meant it (`1.10` stays 1.10). The !ruby/object:Gem::…
    // tags are unknown to yaml, so their nodes are read as the plain maps they are (a warning, not shown).
    const doc = yaml.parseDocument(text, { schema: 'failsafe', logLevel: 'silent', uniqueKeys: false });
    if (doc.errors.length > 0) return undefined;
    const spec: unknown = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    return isNode(spec) ? spec : undefined;
  } catch {
    // Excessive aliases (and anything else yaml refuses): no dependencies can be read.
    return undefined;
  }
}

export function parseGemspecDependencies(text: string): SbomDependency[] {
  const out: SbomDependency[] = [];
  for (const dep of list(readSpec(text)?.dependencies)) {
    if (out.length >= MAX_DEPENDENCIES) break;
    if (!isNode(dep) || typeof dep.name !== 'string' || dep.name === '') continue;
    const requirement = dep.requirement ?? dep.version_requirements;
    const ranges = list(isNode(requirement) ? requirement.requirements : undefined).flatMap((pair) => {
      const [op, version] = list(pair);
      const v = versionText(version);
      return typeof op === 'string' && v !== undefined ? [`${op} ${v}`] : [];
    });
    out.push({
      name: dep.name,
      range: ranges.join(', ') || '>= 0',
      scope: dep.type === ':development' ? 'dev' : 'runtime',
    });
  }
  return out;
}
