/**
 * go.sum: `<module> <version> h1:<hash>` (the module zip's file tree) and `<module> <version>/go.mod h1:<hash>`.
 * One entry per module version; a version with only a go.mod line is one go needs the go.mod of, not the zip
 * (its entry carries `files: ['go.mod']`).
 */
import { goH1 } from '../digest.js';
import { EntryList, LockfileError, linesOf, type LockEntry, type ParseLimits } from '../entry.js';

export function parseGoSum(text: string, limits: ParseLimits): LockEntry[] {
  const zips = new Map<string, LockEntry>();
  const mods = new Map<string, LockEntry>();
  let n = 0;
  for (const [i, raw] of linesOf(text).entries()) {
    const line = raw.trim();
    if (!line) continue;
    const parts = line.split(/\s+/);
    if (parts.length !== 3) throw new LockfileError(`go.sum line ${i + 1}: not "<module> <version> h1:<hash>"`);
    const [module, version, hash] = parts as [string, string, string];
    if (++n > limits.maxEntries * 2)
      throw new LockfileError(`the lockfile holds more than ${limits.maxEntries} entries (the limit)`);
    const mod = version.endsWith('/go.mod');
    const v = mod ? version.slice(0, -'/go.mod'.length) : version;
    const entry: LockEntry = {
      ecosystem: 'go',
      name: module,
      version: v,
      digests: [goH1(hash)],
      ...(mod ? { files: ['go.mod'] } : {}),
    };
    (mod ? mods : zips).set(`${module} ${v}`, entry);
  }
  const out = new EntryList(limits);
  for (const e of zips.values()) out.add(e);
  for (const [k, e] of mods) if (!zips.has(k)) out.add(e);
  return out.entries;
}
