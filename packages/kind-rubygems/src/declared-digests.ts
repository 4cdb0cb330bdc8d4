import { probeFetch, type DeclaredDigest, type DeclaredDigests } from '@hub/contract';
import { checkCompactIndex, parseInfo } from './compact-index.js';
import { isGemName } from './names.js';

const MAX_LISTING_BYTES = 32 * 1024 * 1024;

/** Content drift: the compact index's `checksum:` (the .gem's sha256) of each held version, from `/info/<gem>`. */
export const declaredDigests: DeclaredDigests = async (pc, name, versions) => {
  const up = pc.registry.upstream;
  if (!up || !isGemName(name)) return [];
  const res = await probeFetch(pc.upstream, `${up}/info/${name}`, { maxBytes: MAX_LISTING_BYTES });
  if (res.status !== 200 || checkCompactIndex(res.body)) return [];
  const entries = parseInfo(res.body);
  const out: DeclaredDigest[] = [];
  for (const version of versions) {
    const sha256 = entries.find((e) => e.token === version)?.sha256;
    if (sha256) out.push({ version, algorithm: 'sha256', hex: sha256 });
  }
  return out;
};
