/**
 * Gemfile.lock: the `specs:` of each `GEM` section (`    name (version[-platform])`), and the sha256 of each
 * gem from the `CHECKSUMS` section bundler 2.5 and later writes. GIT and PATH sections are not a registry's.
 */
import { prefixedHex } from '../digest.js';
import { EntryList, linesOf, type LockDigest, type LockEntry, type ParseLimits } from '../entry.js';

const SPEC_LINE = /^ {4}([A-Za-z0-9._-]+) \(([^)\s]+)\)$/;
const CHECKSUM = /^ {2}([A-Za-z0-9._-]+) \(([^)\s]+)\)(?: (.+))?$/;

export function parseGemfileLock(text: string, limits: ParseLimits): LockEntry[] {
  const specs: Array<{ name: string; version: string }> = [];
  const sums = new Map<string, LockDigest[]>();
  let section = '';
  let inSpecs = false;
  for (const line of linesOf(text)) {
    if (/^[A-Z]/.test(line)) {
      section = line.trim();
      inSpecs = false;
      continue;
    }
    if (section === 'GEM' && line === '  specs:') inSpecs = true;
    else if (section === 'GEM' && inSpecs) {
      const m = SPEC_LINE.exec(line);
      if (m) specs.push({ name: m[1]!, version: m[2]! });
    } else if (section === 'CHECKSUMS') {
      const m = CHECKSUM.exec(line);
      if (m?.[3])
        sums.set(
          `${m[1]} ${m[2]}`,
          m[3].split(',').flatMap((s) => prefixedHex(s) ?? []),
        );
    }
  }
  const out = new EntryList(limits);
  for (const s of specs)
    out.add({
      ecosystem: 'rubygems',
      name: s.name,
      version: s.version,
      digests: sums.get(`${s.name} ${s.version}`) ?? [],
    });
  return out.entries;
}
