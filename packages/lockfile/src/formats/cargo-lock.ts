/** Cargo.lock: `[[package]]` tables; only those from a registry (`source = "registry+..."` or `sparse+...`), with their sha256 `checksum`. */
import { plainHex } from '../digest.js';
import { EntryList, LockfileError, type LockEntry, type ParseLimits } from '../entry.js';
import { isRecord, parseTomlText, str } from './structured.js';

export function parseCargoLock(text: string, limits: ParseLimits): LockEntry[] {
  const doc = parseTomlText(text);
  if (!isRecord(doc) || !Array.isArray(doc.package)) throw new LockfileError('Cargo.lock: no [[package]] tables');
  const out = new EntryList(limits);
  for (const p of doc.package) {
    if (!isRecord(p)) continue;
    const source = str(p.source);
    // No source: a workspace member; git+: not a registry's to serve.
    if (!source || !/^(registry|sparse)\+/.test(source)) continue;
    const name = str(p.name);
    const version = str(p.version);
    if (!name || !version) throw new LockfileError('Cargo.lock: a [[package]] without name or version');
    const d = plainHex('sha256', p.checksum);
    out.add({ ecosystem: 'cargo', name, version, digests: d ? [d] : [] });
  }
  return out.entries;
}
