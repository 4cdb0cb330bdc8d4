/**
 * yarn.lock of yarn 2 and later (berry): YAML with `__metadata`, one entry per resolution `name@npm:version`.
 * Its `checksum` is of the zip archive yarn makes of the package, not of the registry's tarball: nothing to compare.
 */
import { EntryList, LockfileError, type LockEntry, type ParseLimits } from '../entry.js';
import { splitAt } from './npm-spec.js';
import { isRecord, parseYaml, str } from './structured.js';

export function parseYarnBerry(text: string, limits: ParseLimits): LockEntry[] {
  const doc = parseYaml(text);
  if (!isRecord(doc) || !isRecord(doc.__metadata)) throw new LockfileError('yarn.lock (berry): no __metadata');
  const out = new EntryList(limits);
  for (const [key, p] of Object.entries(doc)) {
    if (key === '__metadata' || !isRecord(p)) continue;
    const resolution = str(p.resolution);
    const s = resolution ? splitAt(resolution) : null;
    // workspace:, patch:, git and file resolutions are not a registry's to serve.
    if (!s || !s.rest.startsWith('npm:')) continue;
    out.add({ ecosystem: 'npm', name: s.name, version: s.rest.slice(4), digests: [] });
  }
  return out.entries;
}
