/**
 * uv.lock: `[[package]]` tables whose `source` is a registry, with `sdist` and `wheels` (url, hash). Editable,
 * virtual, git, path and direct-URL sources are not a registry's to serve.
 */
import { prefixedHex } from '../digest.js';
import { EntryList, LockfileError, type LockEntry, type ParseLimits } from '../entry.js';
import { isRecord, parseTomlText, str } from './structured.js';

const fileName = (url: string | undefined): string[] => {
  const last = url?.split(/[?#]/)[0]!.split('/').pop();
  return last ? [decodeURIComponent(last)] : [];
};

export function parseUvLock(text: string, limits: ParseLimits): LockEntry[] {
  const doc = parseTomlText(text);
  if (!isRecord(doc) || !Array.isArray(doc.package)) throw new LockfileError('uv.lock: no [[package]] tables');
  const out = new EntryList(limits);
  for (const p of doc.package) {
    if (!isRecord(p) || !isRecord(p.source) || p.source.registry === undefined) continue;
    const name = str(p.name);
    const version = str(p.version);
    if (!name || !version) throw new LockfileError('uv.lock: a [[package]] without name or version');
    const files = [
      ...(isRecord(p.sdist) ? [p.sdist] : []),
      ...(Array.isArray(p.wheels) ? p.wheels.filter(isRecord) : []),
    ];
    let names: string[];
    try {
      names = files.flatMap((f) => fileName(str(f.url)));
    } catch {
      throw new LockfileError(`uv.lock: a file URL of ${name} ${version} is not percent-encoded correctly`);
    }
    out.add({
      ecosystem: 'pypi',
      name,
      version,
      digests: files.flatMap((f) => prefixedHex(f.hash) ?? []),
      files: names,
    });
  }
  return out.entries;
}
