import { probeFetch, type DeclaredDigest, type DeclaredDigests } from '@hub/contract';
import { parseIndexFile } from './index-file.js';
import { canonicalName, indexPath } from './names.js';

const MAX_INDEX_BYTES = 32 * 1024 * 1024;

/** Content drift: the index line's `cksum` (the .crate's sha256) of each held version. */
export const declaredDigests: DeclaredDigests = async (pc, rawName, versions) => {
  const name = canonicalName(rawName);
  const res = await probeFetch(pc.upstream, `${pc.registry.upstream ?? ''}/${indexPath(name)}`, {
    maxBytes: MAX_INDEX_BYTES,
  });
  if (res.status !== 200) return [];
  const parsed = parseIndexFile(res.body, name);
  if (!Array.isArray(parsed)) return [];
  const out: DeclaredDigest[] = [];
  for (const version of versions) {
    const cksum = parsed.find((e) => e.vers === version)?.cksum;
    if (typeof cksum === 'string' && /^[0-9a-f]{64}$/i.test(cksum))
      out.push({ version, algorithm: 'sha256', hex: cksum.toLowerCase() });
  }
  return out;
};
