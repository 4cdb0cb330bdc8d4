/**
 * Maven's version order (ComparableVersion), enough to choose `<latest>`/`<release>` again when an
 * unlisted version held them: numbers compare numerically, and qualifiers rank
 * alpha < beta < milestone < rc < snapshot < (release) < sp < anything else (alphabetically).
 */
const RANK: Record<string, number> = {
  alpha: 1,
  a: 1,
  beta: 2,
  b: 2,
  milestone: 3,
  m: 3,
  rc: 4,
  cr: 4,
  snapshot: 5,
  '': 6,
  ga: 6,
  final: 6,
  release: 6,
  sp: 7,
};

type Item = bigint | string;

function items(v: string): Item[] {
  const out: Item[] = [];
  for (const part of v.toLowerCase().split(/[.-]/))
    for (const piece of part.match(/\d+|[^\d]+/g) ?? ['']) out.push(/^\d/.test(piece) ? BigInt(piece) : piece);
  // Trailing zeros and release qualifiers do not change a version (1.0 = 1 = 1-final).
  while (out.length && (out.at(-1) === 0n || RANK[out.at(-1) as string] === 6)) out.pop();
  return out;
}

function compareItem(a: Item | undefined, b: Item | undefined): number {
  const rank = (q: string) => RANK[q] ?? 8;
  if (a === undefined && b === undefined) return 0;
  if (a === undefined) return -compareItem(b, a);
  if (typeof a === 'bigint') {
    if (typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
    return b === undefined ? (a > 0n ? 1 : 0) : 1; // a number beats a qualifier
  }
  if (typeof b === 'bigint') return -1;
  const [ra, rb] = [rank(a), rank(b ?? '')];
  if (ra !== rb) return ra - rb;
  return ra === 8 ? (a < (b ?? '') ? -1 : a > (b ?? '') ? 1 : 0) : 0;
}

export function compareMavenVersions(a: string, b: string): number {
  const x = items(a);
  const y = items(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const c = compareItem(x[i], y[i]);
    if (c !== 0) return c;
  }
  return 0;
}
