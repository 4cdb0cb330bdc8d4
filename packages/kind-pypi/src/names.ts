/**
 * Project names, versions and distribution file names.
 *
 * PEP 503: a project name is compared after lower-casing and folding each run of `-`, `_` and `.` into
 * one `-` (`Foo_Bar`, `foo.bar` and `foo-bar` are one project). The normalised name is the coordinate's
 * name everywhere: routes, blocks, flags, unlisting and exposure (the codec's `normalizeName`).
 */

/** PEP 508's name rule: letters, digits, `.`, `_`, `-`, starting and ending with a letter or digit. */
const NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,198}[A-Za-z0-9])?$/;
/**
 * A version as a file name carries it: PEP 440 forms (a digit first, or `v` and a digit) and the legacy
 * suffixes older sdists used. No `/`, no whitespace, nothing that needs escaping in a URL path or an
 * HTML attribute. The leading digit is also what tells `foo-bar-2.0.zip` of `foo-bar` from a `foo` version.
 */
const VERSION = /^[vV]?[0-9][A-Za-z0-9._+!-]{0,127}$/;

export const isProjectName = (s: string): boolean => NAME.test(s);
export const isVersion = (s: string): boolean => VERSION.test(s);

export const normalizeName = (name: string): string => name.replace(/[-_.]+/g, '-').toLowerCase();

export type DistKind = 'wheel' | 'sdist';

/** Archive suffixes pip installs from, longest first; the format hub checks the bytes against. */
export const DIST_SUFFIXES: ReadonlyArray<{ suffix: string; kind: DistKind; format?: 'zip' | 'gzip' }> = [
  { suffix: '.whl', kind: 'wheel', format: 'zip' },
  { suffix: '.tar.gz', kind: 'sdist', format: 'gzip' },
  { suffix: '.tgz', kind: 'sdist', format: 'gzip' },
  { suffix: '.zip', kind: 'sdist', format: 'zip' },
  { suffix: '.tar.bz2', kind: 'sdist' },
];

export interface DistFile {
  /** The project, normalised. */
  project: string;
  version: string;
  kind: DistKind;
  format?: 'zip' | 'gzip';
}

/** At most this long: a file name is a path segment, a cache key and an HTML text node. */
const MAX_FILENAME = 255;

/**
 * Which version of `project` a distribution file is, or null when the name is not one of its files.
 * Wheels: `{name}-{version}(-{build})?-{python}-{abi}-{platform}.whl`, the name escaped with `_`.
 * Sdists: `{name}-{version}.tar.gz` (or .zip, ...), where older sdists keep `-` in the name, so the
 * split is the one whose prefix normalises to the project (the project comes from the URL).
 */
export function parseDistFile(project: string, filename: string): DistFile | null {
  if (filename.length > MAX_FILENAME || /[/\\\s"'<>&#?%]/.test(filename) || filename.startsWith('.')) return null;
  const lower = filename.toLowerCase();
  const type = DIST_SUFFIXES.find((d) => lower.endsWith(d.suffix));
  if (!type) return null;
  const stem = filename.slice(0, -type.suffix.length);
  const base = { project, kind: type.kind, ...(type.format ? { format: type.format } : {}) };
  if (type.kind === 'wheel') {
    const parts = stem.split('-');
    if (parts.length !== 5 && parts.length !== 6) return null;
    if (normalizeName(parts[0]!) !== project || !isVersion(parts[1]!)) return null;
    if (parts.slice(2).some((p) => !/^[A-Za-z0-9_.+]+$/.test(p))) return null;
    return { ...base, version: parts[1]! };
  }
  for (let i = stem.indexOf('-'); i !== -1; i = stem.indexOf('-', i + 1)) {
    const version = stem.slice(i + 1);
    if (normalizeName(stem.slice(0, i)) === project && isVersion(version)) return { ...base, version };
  }
  return null;
}
