import { MAX_VERSION_RANGE_CHARS, type ParsedVersionRange } from '@hub/contract';
import { canonicalVersion, compareVersions, isPep440, normalVersion } from './pep440.js';

/**
 * A flag's `version_range` as a PEP 440 specifier set: comma-separated clauses that must all hold, each
 * `==`, `!=`, `<`, `<=`, `>`, `>=`, `~=` or `===` and a version; `==` and `!=` take a trailing `.*`
 * (`==1.4.*`). A flag covers what a range admits by PEP 440's order, pre-releases and post-releases
 * included (a flag fails closed: `<2.0` covers `2.0rc1`, which pip would only pick when asked). Local
 * labels are ignored except by `==` and `!=` with a local label, and by `===`.
 */
const CLAUSE = /^(~=|===|==|!=|<=|>=|<|>)\s*(\S+)$/;

type Match = (v: string) => boolean;

const withoutLocal = (v: string) => v.split('+')[0]!;

/** `==1.4.*`: the release starts with 1.4 (zero-padded), any pre, post or dev. */
function prefixMatch(prefix: string): Match | string {
  const normal = normalVersion(prefix);
  if (normal === null || !/^(\d+!)?\d+(\.\d+)*$/.test(normal))
    return `"${prefix}.*" is not a release prefix such as 1.4.*`;
  const [epoch, release] = normal.includes('!') ? [normal.split('!')[0]!, normal.split('!')[1]!] : ['0', normal];
  const want = release.split('.');
  return (v) => {
    const n = normalVersion(v);
    if (n === null) return false;
    const [e, rest] = n.includes('!') ? [n.split('!')[0]!, n.split('!')[1]!] : ['0', n];
    const got = /^\d+(?:\.\d+)*/.exec(rest)![0].split('.');
    return e === epoch && want.every((p, i) => (got[i] ?? '0') === p);
  };
}

function clause(text: string): Match | string {
  const m = CLAUSE.exec(text);
  if (!m) return `"${text}" is not a PEP 440 specifier such as >=1.0 or ==1.4.*`;
  const [, op, raw] = m as unknown as [string, string, string];
  if (op === '===') return (v) => v.trim().toLowerCase() === raw.toLowerCase();
  if ((op === '==' || op === '!=') && raw.endsWith('.*')) {
    const p = prefixMatch(raw.slice(0, -2));
    if (typeof p === 'string') return p;
    return op === '==' ? p : (v) => !p(v);
  }
  if (!isPep440(raw)) return `"${raw}" is not a PEP 440 version`;
  const key = canonicalVersion(raw);
  const hasLocal = raw.includes('+');
  if (op === '==' || op === '!=') {
    const eq: Match = (v) => canonicalVersion(hasLocal ? v : withoutLocal(v)) === key;
    return op === '==' ? eq : (v) => isPep440(v) && !eq(v);
  }
  if (hasLocal) return `"${raw}": a local version label is allowed only with == and !=`;
  const cmp = (v: string) => (isPep440(v) ? compareVersions(withoutLocal(v), raw) : NaN);
  if (op === '~=') {
    const release = /^(?:\d+!)?(\d+(?:\.\d+)*)/.exec(normalVersion(raw)!)![1]!.split('.');
    if (release.length < 2) return `"~=${raw}" needs at least two release numbers, as in ~=1.4`;
    const p = prefixMatch(release.slice(0, -1).join('.')) as Match;
    return (v) => cmp(v) >= 0 && p(v);
  }
  const test: Record<string, (c: number) => boolean> = {
    '<': (c) => c < 0,
    '<=': (c) => c <= 0,
    '>': (c) => c > 0,
    '>=': (c) => c >= 0,
  };
  return (v) => test[op]!(cmp(v));
}

export function pypiVersionRange(text: string): ParsedVersionRange {
  const s = text.trim();
  if (s.length === 0 || s.length > MAX_VERSION_RANGE_CHARS)
    return { ok: false, reason: `must be 1 to ${MAX_VERSION_RANGE_CHARS} characters` };
  const matches: Match[] = [];
  for (const part of s.split(',')) {
    const c = clause(part.trim());
    if (typeof c === 'string') return { ok: false, reason: c };
    matches.push(c);
  }
  return { ok: true, matches: (v) => matches.every((m) => m(v)) };
}
