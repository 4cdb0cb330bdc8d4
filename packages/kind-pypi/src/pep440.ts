/**
 * PEP 440 version spellings. pip reads `1.0`, `1.0.0` and `v1.0.0.0` as one version, and `1.0RC1`,
 * `1.0c1` and `1.0-rc.1` as another: it compares versions by value, so a block, an unlisting, a flag or a
 * tombstone written with one spelling must hold for every other (decision 0039).
 *
 * Two forms:
 * - `normalVersion`: PEP 440's normalised form, which pip prints (`V1.0.0RC1` → `1.0.0rc1`); release
 *   zeros are kept, so it is the spelling hub stores and shows.
 * - `canonicalVersion`: the normal form with trailing `.0` release segments dropped (`1.0.0` → `1`), the
 *   key two versions share exactly when PEP 440 says they are equal (its release comparison pads with
 *   zeros). The same key the `packaging` library's `canonicalize_version` gives.
 *
 * A local label (`+ubuntu.1`) stays part of the version: `1.0+a` and `1.0` are different files and
 * different versions to hub, as they are to an index. Text that is not PEP 440 (pre-PEP 440 sdists)
 * is only trimmed and lower-cased.
 */

/** PEP 440 appendix B's regular expression (case-insensitive), without the surrounding whitespace. */
const PEP440 = new RegExp(
  '^v?' +
    '(?:(?<epoch>[0-9]+)!)?' +
    '(?<release>[0-9]+(?:\\.[0-9]+)*)' +
    '(?<pre>[-_.]?(?<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?<pre_n>[0-9]+)?)?' +
    '(?<post>(?:-(?<post_n1>[0-9]+))|(?:[-_.]?(?<post_l>post|rev|r)[-_.]?(?<post_n2>[0-9]+)?))?' +
    '(?<dev>[-_.]?(?<dev_l>dev)[-_.]?(?<dev_n>[0-9]+)?)?' +
    '(?:\\+(?<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?$',
  'i',
);

/** Longer text is not read as a version (a file name caps it well below this anyway). */
const MAX_CHARS = 256;

const PRE_LABEL: Record<string, string> = {
  alpha: 'a',
  a: 'a',
  beta: 'b',
  b: 'b',
  c: 'rc',
  pre: 'rc',
  preview: 'rc',
  rc: 'rc',
};

/** A run of digits as a number's text, leading zeros dropped (`007` → `7`), exact at any length. */
const num = (digits: string | undefined): string => (digits ?? '0').replace(/^0+(?=\d)/, '');

interface Parts {
  epoch: string;
  release: string[];
  suffix: string;
}

function parts(version: string): Parts | null {
  const text = version.trim();
  if (text.length > MAX_CHARS) return null;
  const m = PEP440.exec(text);
  if (!m?.groups) return null;
  const g = m.groups;
  let suffix = '';
  if (g.pre_l) suffix += `${PRE_LABEL[g.pre_l.toLowerCase()]}${num(g.pre_n)}`;
  if (g.post) suffix += `.post${num(g.post_n1 ?? g.post_n2)}`;
  if (g.dev) suffix += `.dev${num(g.dev_n)}`;
  // Local segments: lower-case, separators become dots, numeric segments lose leading zeros.
  if (g.local)
    suffix += `+${g.local
      .toLowerCase()
      .split(/[-_.]/)
      .map((s) => (/^\d+$/.test(s) ? num(s) : s))
      .join('.')}`;
  return { epoch: num(g.epoch), release: g.release!.split('.').map(num), suffix };
}

const epochOf = (p: Parts) => (p.epoch === '0' ? '' : `${p.epoch}!`);

/** Whether the text is a PEP 440 version (in any of the spellings PEP 440 accepts). */
export const isPep440 = (version: string): boolean => parts(version) !== null;

/** PEP 440's normalised form (`v1.0.0-RC.1` → `1.0.0rc1`); null when the text is not a PEP 440 version. */
export function normalVersion(version: string): string | null {
  const p = parts(version);
  return p && `${epochOf(p)}${p.release.join('.')}${p.suffix}`;
}

/**
 * The spelling every PEP 440-equal spelling shares: the normal form with trailing zero release segments
 * dropped (`1.0.0.0`, `1.0` and `v1` → `1`; `0!1.0rc1` → `1rc1`). Idempotent. Not PEP 440: trimmed and
 * lower-cased, as pip's own name for it would be.
 */
export function canonicalVersion(version: string): string {
  const p = parts(version);
  if (!p) return version.trim().toLowerCase();
  const release = [...p.release];
  while (release.length > 1 && release[release.length - 1] === '0') release.pop();
  return `${epochOf(p)}${release.join('.')}${p.suffix}`;
}

/** A parsed version for ordering: numbers as bigint-free digit strings compared by length then text. */
interface Order {
  epoch: string;
  release: string[];
  /** [rank, n]: rank -1 a dev-only release, 0 a, 1 b, 2 rc, 3 none. */
  pre: [number, string];
  post: string | null;
  dev: string | null;
  local: string[];
}

const PRE_RANK: Record<string, number> = { a: 0, b: 1, rc: 2 };

function orderOf(version: string): Order | null {
  const normal = normalVersion(version);
  if (normal === null) return null;
  const m = /^(?:(\d+)!)?(\d+(?:\.\d+)*)(?:(a|b|rc)(\d+))?(?:\.post(\d+))?(?:\.dev(\d+))?(?:\+(.+))?$/.exec(normal)!;
  const dev = m[6] ?? null;
  const post = m[5] ?? null;
  const pre: [number, string] = m[3] ? [PRE_RANK[m[3]]!, m[4]!] : dev !== null && post === null ? [-1, '0'] : [3, '0'];
  return { epoch: m[1] ?? '0', release: m[2]!.split('.'), pre, post, dev, local: m[7] ? m[7].split('.') : [] };
}

/** Two digit strings without leading zeros, by value. */
const cmpNum = (a: string, b: string): number =>
  a.length !== b.length ? a.length - b.length : a < b ? -1 : a > b ? 1 : 0;

function cmpRelease(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const c = cmpNum(a[i] ?? '0', b[i] ?? '0');
    if (c !== 0) return c;
  }
  return 0;
}

/** Local segments: numbers above words, words by text, a longer label above its prefix. */
function cmpLocal(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const [p, q] = [a[i], b[i]];
    if (p === undefined || q === undefined) return p === undefined ? -1 : 1;
    const [pn, qn] = [/^\d+$/.test(p), /^\d+$/.test(q)];
    if (pn !== qn) return pn ? 1 : -1;
    const c = pn ? cmpNum(p, q) : p < q ? -1 : p > q ? 1 : 0;
    if (c !== 0) return c;
  }
  return 0;
}

function cmpOrder(x: Order, y: Order, withLocal: boolean): number {
  return (
    cmpNum(x.epoch, y.epoch) ||
    cmpRelease(x.release, y.release) ||
    x.pre[0] - y.pre[0] ||
    cmpNum(x.pre[1], y.pre[1]) ||
    (x.post === y.post ? 0 : x.post === null ? -1 : y.post === null ? 1 : cmpNum(x.post, y.post)) ||
    (x.dev === y.dev ? 0 : x.dev === null ? 1 : y.dev === null ? -1 : cmpNum(x.dev, y.dev)) ||
    (withLocal ? cmpLocal(x.local, y.local) : 0)
  );
}

/** PEP 440 order (negative: `a` is older); text that is not PEP 440 sorts below every version, by text. */
export function compareVersions(a: string, b: string): number {
  const [x, y] = [orderOf(a), orderOf(b)];
  if (!x || !y) return x ? 1 : y ? -1 : a < b ? -1 : a > b ? 1 : 0;
  return cmpOrder(x, y, true);
}

/** Whether a version is a pre-release or a development release (pip skips those unless asked). */
export const isPrerelease = (v: string): boolean => {
  const o = orderOf(v);
  return o !== null && (o.pre[0] < 3 || o.dev !== null);
};
