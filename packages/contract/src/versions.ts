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
