import { probeFetch, type DeclaredDigest, type DeclaredDigests } from '@hub/contract';
import { upstreamPath } from './names.js';
import { CORGI } from './packument.js';
import { MAX_PACKUMENT_BYTES } from './probe.js';

const ALGORITHMS = { sha512: 'sha512', sha256: 'sha256', sha1: 'sha1' } as const;

/** The strongest digest of an SRI `integrity` string (`sha512-<base64>`, space-separated), or null. */
export function strongest(integrity: unknown): Omit<DeclaredDigest, 'version'> | null {
  if (typeof integrity !== 'string') return null;
  let best: Omit<DeclaredDigest, 'version'> | null = null;
  for (const part of integrity.trim().split(/\s+/)) {
    const m = /^(sha512|sha256|sha1)-([A-Za-z0-9+/]+=*)(?:\?.*)?$/.exec(part);
    if (!m) continue;
    const algorithm = ALGORITHMS[m[1] as keyof typeof ALGORITHMS];
    if (
      !best ||
      (algorithm === 'sha512' && best.algorithm !== 'sha512') ||
      (algorithm === 'sha256' && best.algorithm === 'sha1')
    )
      best = { algorithm, hex: Buffer.from(m[2]!, 'base64').toString('hex') };
  }
  return best;
}

/** Content drift: the packument's `dist.integrity` (else `dist.shasum`, sha1) of each held version. */
export const declaredDigests: DeclaredDigests = async (pc, name, versions) => {
  const res = await probeFetch(pc.upstream, `${pc.registry.upstream}/${upstreamPath(name)}`, {
    headers: { accept: CORGI },
    maxBytes: MAX_PACKUMENT_BYTES,
  });
  if (res.status !== 200) return [];
  let doc: { versions?: Record<string, { dist?: { integrity?: unknown; shasum?: unknown } }> };
  try {
    doc = JSON.parse(res.body.toString('utf8')) as typeof doc;
  } catch {
    return [];
  }
  const out: DeclaredDigest[] = [];
  for (const version of versions) {
    const dist = doc.versions?.[version]?.dist;
    const d =
      strongest(dist?.integrity) ??
      (typeof dist?.shasum === 'string' && /^[0-9a-f]{40}$/i.test(dist.shasum)
        ? { algorithm: 'sha1' as const, hex: dist.shasum.toLowerCase() }
        : null);
    if (d) out.push({ version, ...d });
  }
  return out;
};
