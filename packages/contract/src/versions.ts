/**
 * SemVer 2.0 precedence of pre-release identifier lists (`rc.10` > `rc.2`; `1.0.0` > `1.0.0-rc.1`):
 * an empty list is a release and ranks above any pre-release. For orders that are not plain semver
 * (NuGet's four numbers); plain semver (npm, Go) uses the `semver` package.
 */
export function comparePrerelease(x: readonly string[], y: readonly string[]): number {
  if (x.length === 0 || y.length === 0) return y.length - x.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i];
    const q = y[i];
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn && Number(p) !== Number(q)) return Number(p) - Number(q);
    if (pn !== qn) return pn ? -1 : 1;
    if (p !== q) return p < q ? -1 : 1;
  }
  return 0;
}

/** `1.2.3-rc.1+build` → main `1.2.3`, pre-release `rc.1` (build metadata ignored). A leading `v` is dropped. */
function splitVersion(v: string): { main: string[]; pre: string[] } {
  const core = v.replace(/^v(?=\d)/, '').split('+')[0]!;
  const dash = core.indexOf('-');
  return dash < 0
    ? { main: core.split('.'), pre: [] }
    : { main: core.slice(0, dash).split('.'), pre: core.slice(dash + 1).split('.') };
}

/**
 * A version order for kinds that declare none: the dot-separated parts compared as numbers where both
 * are numbers (`1.10` > `1.9`), as text otherwise, then the pre-release by SemVer precedence; ties in
 * text order, so the order is total.
 */
export function genericVersionOrder(a: string, b: string): number {
  const x = splitVersion(a);
  const y = splitVersion(b);
  for (let i = 0; i < Math.max(x.main.length, y.main.length); i++) {
    const p = x.main[i] ?? '0';
    const q = y.main[i] ?? '0';
    const pn = /^\d+$/.test(p);
    const qn = /^\d+$/.test(q);
    if (pn && qn && Number(p) !== Number(q)) return Number(p) - Number(q);
    if (pn !== qn) return pn ? 1 : -1;
    if (p !== q) return p < q ? -1 : 1;
  }
  const pre = comparePrerelease(x.pre, y.pre);
  if (pre !== 0) return pre;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A version with a pre-release part (`1.0.0-rc.1`, `2.0-SNAPSHOT`, `v0.0.0-2024…`): SemVer's rule. */
export const isGenericPrerelease = (v: string): boolean => splitVersion(v).pre.length > 0;
