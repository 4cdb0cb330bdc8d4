/**
 * hub's own advisories (its flags, `rc.advisories`) in npm's two audit formats: the bulk answer
 * (`{name: [advisory]}`, npm 7+) and npm 6's tree report (`advisories` by id with findings, which pnpm reads).
 */
import semver from 'semver';
import type { HubAdvisory } from '@hub/contract';
import { npmVersionRange } from './version-range.js';

/**
 * A flag's effect as npm's severity (decision 0060): what hub does with the version decides how loud npm is.
 * `hard_block` (refused everywhere) is critical, `gate` (refused under a security profile) high, `warn`
 * moderate, `info` info.
 */
const SEVERITY: Readonly<Record<string, string>> = {
  hard_block: 'critical',
  gate: 'high',
  warn: 'moderate',
  info: 'info',
};
export const npmSeverity = (effect: string): string => SEVERITY[effect] ?? 'moderate';

/** The versions a tree query names per package, with the dependency paths that lead to each. */
export type Installed = Map<string, Map<string, string[]>>;

/** Paths kept per installed version: a finding names where a version comes from, not every route to it. */
const MAX_PATHS = 100;

/** The flag's versions in npm's range syntax: its range (already npm syntax, or `*`), else its one version. */
export function vulnerableVersions(a: HubAdvisory): string | null {
  if (a.versionRange !== null) return a.versionRange;
  return a.version !== null && semver.valid(a.version) ? a.version : null;
}

/** The advisories that cover a version the client asked about, each with the versions it covers. */
export function applicable(
  advisories: readonly HubAdvisory[],
  asked: (name: string) => readonly string[],
): Array<{ a: HubAdvisory; range: string; versions: string[] }> {
  const out = [];
  for (const a of advisories) {
    const range = vulnerableVersions(a);
    if (range === null) continue;
    const parsed = npmVersionRange(range);
    if (!parsed.ok) continue;
    const versions = asked(a.name).filter((v) => parsed.matches(v));
    if (versions.length) out.push({ a, range, versions });
  }
  return out;
}

/** One entry of the bulk answer, as npm's registry writes it. */
export const bulkEntry = (a: HubAdvisory, range: string) => ({
  id: a.id,
  url: a.url,
  title: a.title,
  severity: npmSeverity(a.effect),
  vulnerable_versions: range,
  cwe: [],
  cvss: { score: 0, vectorString: null },
});

/** Adds hub's advisories to a bulk answer (`{name: [advisory]}`), after the upstream's own. */
export function mergeBulk(
  doc: Record<string, unknown>,
  query: Readonly<Record<string, readonly string[]>>,
  advisories: readonly HubAdvisory[],
): Record<string, unknown> {
  for (const { a, range } of applicable(advisories, (name) => query[name] ?? [])) {
    const list = Array.isArray(doc[a.name]) ? (doc[a.name] as unknown[]) : (doc[a.name] = []);
    list.push(bulkEntry(a, range));
  }
  return doc;
}

/**
 * The installed versions of npm 6's tree query (`{dependencies: {name: {version, dependencies}}}`), with
 * their paths (`a>b`). Walked with a stack, not recursion: a hostile body nests as deep as its 10 MiB allow.
 */
export function installedOf(tree: unknown): Installed {
  const out: Installed = new Map();
  const stack: Array<{ deps: unknown; path: string }> = [
    { deps: (tree as { dependencies?: unknown } | null)?.dependencies, path: '' },
  ];
  while (stack.length) {
    const { deps, path } = stack.pop()!;
    if (!deps || typeof deps !== 'object' || Array.isArray(deps)) continue;
    for (const [name, node] of Object.entries(deps as Record<string, unknown>)) {
      if (!node || typeof node !== 'object') continue;
      const here = path ? `${path}>${name}` : name;
      const version = (node as { version?: unknown }).version;
      if (typeof version === 'string') {
        const versions = out.get(name) ?? out.set(name, new Map()).get(name)!;
        const paths = versions.get(version) ?? versions.set(version, []).get(version)!;
        if (paths.length < MAX_PATHS) paths.push(here);
      }
      stack.push({ deps: (node as { dependencies?: unknown }).dependencies, path: here });
    }
  }
  return out;
}

/** Adds hub's advisories to npm 6's report: each under `advisories[id]` with its findings, counted in `metadata.vulnerabilities`. */
export function mergeTree(
  doc: Record<string, unknown>,
  installed: Installed,
  advisories: readonly HubAdvisory[],
): Record<string, unknown> {
  const found = applicable(advisories, (name) => [...(installed.get(name)?.keys() ?? [])]);
  if (found.length === 0) return doc;
  const all = (
    doc.advisories && typeof doc.advisories === 'object' && !Array.isArray(doc.advisories)
      ? doc.advisories
      : (doc.advisories = {})
  ) as Record<string, unknown>;
  const metadata = (doc.metadata && typeof doc.metadata === 'object' ? doc.metadata : (doc.metadata = {})) as Record<
    string,
    unknown
  >;
  const counts = (
    metadata.vulnerabilities && typeof metadata.vulnerabilities === 'object'
      ? metadata.vulnerabilities
      : (metadata.vulnerabilities = {})
  ) as Record<string, number>;
  for (const { a, range, versions } of found) {
    const findings = versions.map((version) => ({ version, paths: installed.get(a.name)!.get(version)! }));
    const severity = npmSeverity(a.effect);
    all[a.id] = {
      id: a.id,
      title: a.title,
      module_name: a.name,
      vulnerable_versions: range,
      patched_versions: '<0.0.0',
      severity,
      url: a.url,
      overview: a.title,
      recommendation: `See ${a.url}`,
      cwe: '',
      cves: [],
      access: 'public',
      findings,
    };
    counts[severity] = (Number(counts[severity]) || 0) + findings.reduce((n, f) => n + f.paths.length, 0);
  }
  return doc;
}
