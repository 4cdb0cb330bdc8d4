import { probeFetch, type DeclaredDigest, type DeclaredDigests, type ProbeContext } from '@hub/contract';
import { parseRequest } from './layout.js';
import { MAX_VERSION_PROBES } from './probe.js';

/** A checksum file holds a hex digest, perhaps a file name after it: a few hundred bytes at most. */
const MAX_CHECKSUM_BYTES = 4096;

/** Strongest first; md5 is weaker than the sha1 hub verified with, so it is never asked for. */
const ALGORITHMS = [
  { algorithm: 'sha512', hexLength: 128 },
  { algorithm: 'sha256', hexLength: 64 },
  { algorithm: 'sha1', hexLength: 40 },
] as const;

const url = (pc: ProbeContext, path: string) =>
  `${pc.registry.upstream}/${path.split('/').map(encodeURIComponent).join('/')}`;

/**
 * The strongest checksum file the upstream has beside `path`. Only a 404/410 moves on to a weaker one:
 * any other failure (5xx, timeout, an HTML page, a malformed digest) declares nothing for the file,
 * so an upstream failure is never a change.
 */
async function strongest(pc: ProbeContext, path: string): Promise<Omit<DeclaredDigest, 'version'> | null> {
  for (const { algorithm, hexLength } of ALGORITHMS) {
    const res = await probeFetch(pc.upstream, url(pc, `${path}.${algorithm}`), { maxBytes: MAX_CHECKSUM_BYTES });
    if (res.status === 404 || res.status === 410) continue;
    if (res.status !== 200 || /^text\/html\b/i.test(res.contentType ?? '')) return null;
    const hex = new RegExp(`^\\s*([0-9a-fA-F]{${hexLength}})(?:\\s|$)`).exec(res.body.toString('latin1'))?.[1];
    return hex ? { algorithm, hex: hex.toLowerCase(), key: path } : null;
  }
  return null;
}

/**
 * Content drift: for each held primary file (POM, jar, any classifier; not checksums or signatures, not
 * a SNAPSHOT file that changes in place), the strongest `<file>.sha512`/`.sha256`/`.sha1` the upstream
 * has beside it. At most 25 files per package per sweep (packages/audit/README.md), newest versions first.
 */
export const declaredDigests: DeclaredDigests = async (pc, name, versions, held) => {
  if (!pc.registry.upstream) return [];
  const out: DeclaredDigest[] = [];
  let asked = 0;
  for (const version of versions)
    for (const key of held.get(version) ?? []) {
      let r;
      try {
        r = parseRequest(['maven2', ...key.split('/')]);
      } catch {
        continue; // not a key of this layout
      }
      if (
        r?.type !== 'file' ||
        r.role !== 'primary' ||
        r.mutable ||
        r.coordinate.name !== name ||
        r.coordinate.version !== version ||
        r.path !== key
      )
        continue;
      if (asked++ >= MAX_VERSION_PROBES) return out;
      const d = await strongest(pc, key);
      if (d) out.push({ version, ...d });
    }
  return out;
};
