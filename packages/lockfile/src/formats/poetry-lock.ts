/**
 * poetry.lock: `[[package]]` tables with `files = [{file, hash}]` (poetry 1.5 and later), or the older
 * `[metadata.files]` table by name. Packages from git, a directory or a file URL are not a registry's.
 */
import { prefixedHex } from '../digest.js';
import { EntryList, LockfileError, type LockEntry, type ParseLimits } from '../entry.js';
import { isRecord, parseTomlText, str } from './structured.js';

export function parsePoetryLock(text: string, limits: ParseLimits): LockEntry[] {
  const doc = parseTomlText(text);
  if (!isRecord(doc) || !Array.isArray(doc.package)) throw new LockfileError('poetry.lock: no [[package]] tables');
  const legacy = isRecord(doc.metadata) && isRecord(doc.metadata.files) ? doc.metadata.files : {};
  const out = new EntryList(limits);
  for (const p of doc.package) {
    if (!isRecord(p)) continue;
    const type = isRecord(p.source) ? str(p.source.type) : undefined;
    if (type !== undefined && type !== 'legacy') continue;
    const name = str(p.name);
    const version = str(p.version);
    if (!name || !version) throw new LockfileError('poetry.lock: a [[package]] without name or version');
    const files = (
      Array.isArray(p.files) ? p.files : Array.isArray(legacy[name]) ? (legacy[name] as unknown[]) : []
    ).filter(isRecord);
    out.add({
      ecosystem: 'pypi',
      name,
      version,
      digests: files.flatMap((f) => prefixedHex(f.hash) ?? []),
      files: files.flatMap((f) => str(f.file) ?? []),
    });
  }
  return out.entries;
}
