/** NuGet's packages.lock.json: per target framework, each package's `resolved` version and `contentHash` (base64 sha512 of the .nupkg). */
import { base64Digest } from '../digest.js';
import { EntryList, LockfileError, type LockEntry, type ParseLimits } from '../entry.js';
import { isRecord, parseJson, str } from './structured.js';

export function parseNugetLock(text: string, limits: ParseLimits): LockEntry[] {
  const doc = parseJson(text);
  if (!isRecord(doc) || !isRecord(doc.dependencies))
    throw new LockfileError('packages.lock.json: no "dependencies" object');
  const out = new EntryList(limits);
  for (const framework of Object.values(doc.dependencies)) {
    if (!isRecord(framework)) continue;
    for (const [id, p] of Object.entries(framework)) {
      // A project reference is the solution's own code.
      if (!isRecord(p) || p.type === 'Project') continue;
      const version = str(p.resolved);
      if (!version) continue;
      const d = base64Digest('sha512', p.contentHash);
      out.add({ ecosystem: 'nuget', name: id, version, digests: d ? [d] : [] });
    }
  }
  return out.entries;
}
