/** Gem::Version ordering: numeric segments compare as numbers, letters start a prerelease (lower). */
const segments = (v: string): Array<number | string> =>
  (v.match(/[0-9]+|[a-z]+/gi) ?? []).map((s) => (/^[0-9]/.test(s) ? Number(s) : s));

export function compareGemVersions(a: string, b: string): number {
  const x = segments(a);
  const y = segments(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const p = x[i] ?? 0;
    const q = y[i] ?? 0;
    if (p === q) continue;
    if (typeof p !== typeof q) return typeof p === 'string' ? -1 : 1;
    return p < q ? -1 : 1;
  }
  return 0;
}

export const isPrerelease = (v: string): boolean => /[a-z]/i.test(v);
