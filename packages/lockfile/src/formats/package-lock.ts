/** npm's package-lock.json (and npm-shrinkwrap.json), lockfile versions 2 and 3: the `packages` map. */
import { sriDigests } from '../digest.js';
import { EntryList, LockfileError, type LockEntry, type ParseLimits } from '../entry.js';
import { isRecord, parseJson, str } from './structured.js';

export function parsePackageLock(text: string, limits: ParseLimits): LockEntry[] {
  const doc = parseJson(text);
  if (!isRecord(doc)) throw new LockfileError('package-lock.json: not a JSON object');
  const v = doc.lockfileVersion;
  if (v !== 2 && v !== 3)
    throw new LockfileError(
      `package-lock.json: lockfileVersion ${JSON.stringify(v)?.slice(0, 20)} is not read (2 and 3 are; npm 7 and later write them)`,
    );
  if (!isRecord(doc.packages)) throw new LockfileError('package-lock.json: no "packages" object');
  const out = new EntryList(limits);
  for (const [path, p] of Object.entries(doc.packages)) {
    if (path === '' || !isRecord(p) || p.link === true || p.inBundle === true) continue;
    const at = path.lastIndexOf('node_modules/');
    // A workspace folder (no node_modules/ in its path) is the project's own code.
    if (at < 0) continue;
    const version = str(p.version);
    const resolved = str(p.resolved);
    // git, file: and remote tarballs outside a registry are not a registry's to serve.
    if (!version || (resolved !== undefined && !/^https?:\/\//.test(resolved))) continue;
    const name = str(p.name) ?? path.slice(at + 'node_modules/'.length);
    out.add({ ecosystem: 'npm', name, version, digests: sriDigests(p.integrity) });
  }
  return out.entries;
}
