/** pnpm-lock.yaml (lockfile versions 5 to 9): the `packages` map, keyed `/name@version(peers)` or `name@version`. */
import { sriDigests } from '../digest.js';
import { EntryList, LockfileError, type LockEntry, type ParseLimits } from '../entry.js';
import { splitAt } from './npm-spec.js';
import { isRecord, parseYaml, str } from './structured.js';

function keyParts(key: string): { name: string; version: string } | null {
  const k = key.replace(/^\//, '').replace(/\(.*$/, '');
  const s = splitAt(k);
  if (s) return { name: s.name, version: s.rest.replace(/_.*$/, '') };
  // lockfile v5: `/name/1.0.0`, `/@scope/name/1.0.0`
  const slash = k.lastIndexOf('/');
  return slash > 0 ? { name: k.slice(0, slash), version: k.slice(slash + 1).replace(/_.*$/, '') } : null;
}

export function parsePnpmLock(text: string, limits: ParseLimits): LockEntry[] {
  const doc = parseYaml(text);
  if (!isRecord(doc) || doc.lockfileVersion === undefined)
    throw new LockfileError('pnpm-lock.yaml: no lockfileVersion');
  const out = new EntryList(limits);
  if (doc.packages === undefined || doc.packages === null) return [];
  if (!isRecord(doc.packages)) throw new LockfileError('pnpm-lock.yaml: "packages" is not a map');
  for (const [key, p] of Object.entries(doc.packages)) {
    if (!isRecord(p)) continue;
    const resolution = isRecord(p.resolution) ? p.resolution : {};
    // A tarball, directory or git resolution is not a registry's to serve.
    if (resolution.tarball !== undefined || resolution.directory !== undefined || resolution.repo !== undefined)
      continue;
    const parts = keyParts(key);
    if (!parts) continue;
    const name = str(p.name) ?? parts.name;
    const version = str(p.version) ?? parts.version;
    out.add({ ecosystem: 'npm', name, version, digests: sriDigests(resolution.integrity) });
  }
  return out.entries;
}
