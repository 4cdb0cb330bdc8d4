import { Readable } from 'node:stream';
import { errors, readCapped, type Reply } from '@hub/contract';
import { coordinateName, type Platform, type Provider } from './names.js';
import { downloadDoc, resolveUpstreamUrl, type Rc } from './registry-docs.js';
import { coolDownTime } from './cooldown.js';

/** SHA256SUMS lists one line per platform zip; anything near this size is not one. */
const MAX_SUMS_BYTES = 256 * 1024;
const SUMS_LINE = /^([0-9a-fA-F]{64}) [ *]?(\S+)$/;

/** The three files behind a download document; cached per version (sums) or per platform (zip). */
export type ProviderFile = 'archive' | 'shasums' | 'signature';

const sumsHead = (head: Buffer): string | null =>
  /^[0-9a-fA-F]{64} /.test(head.subarray(0, 65).toString('latin1')) ? null : 'is not a SHA256SUMS file';

/** A detached OpenPGP signature: a binary packet (high bit set) or ASCII armor. */
const signatureHead = (head: Buffer): string | null =>
  head.length > 0 &&
  ((head[0]! & 0x80) !== 0 || head.subarray(0, 29).toString('latin1') === '-----BEGIN PGP SIGNATURE-----')
    ? null
    : 'is not an OpenPGP signature';

function sumsSpec(rc: Rc, p: Provider, v: string, pl: Platform) {
  return {
    // Per version: every platform's download document names the same SHA256SUMS.
    key: `${p.ns}/${p.type}/${v}/SHA256SUMS`,
    coordinate: { name: coordinateName(p), version: v },
    contentType: 'text/plain; charset=utf-8',
    checkHead: sumsHead,
    async source() {
      const d = await downloadDoc(rc, p, v, pl);
      return {
        url: resolveUpstreamUrl(d.parsed.shasums_url, d.url, 'shasums_url'),
        publishedAt: await coolDownTime(rc, p, v),
      };
    },
  };
}

function signatureSpec(rc: Rc, p: Provider, v: string, pl: Platform) {
  return {
    key: `${p.ns}/${p.type}/${v}/SHA256SUMS.sig`,
    coordinate: { name: coordinateName(p), version: v },
    contentType: 'application/pgp-signature',
    checkHead: signatureHead,
    async source() {
      const d = await downloadDoc(rc, p, v, pl);
      return {
        url: resolveUpstreamUrl(d.parsed.shasums_signature_url, d.url, 'shasums_signature_url'),
        publishedAt: await coolDownTime(rc, p, v),
      };
    },
  };
}

async function readReply(r: Reply, max: number): Promise<Buffer> {
  const body = r.body;
  if (body === null) return Buffer.alloc(0);
  if (!(body instanceof Readable)) return Buffer.from(body);
  return readCapped(body, max, () => errors.upstream(`the upstream SHA256SUMS exceeds ${max} bytes`));
}

/** The version's SHA256SUMS (fetched once and cached) as filename -> lower-case hex. */
export async function shasums(rc: Rc, p: Provider, v: string, pl: Platform): Promise<Map<string, string>> {
  let text: string;
  try {
    text = (await readReply(await rc.artifact(sumsSpec(rc, p, v, pl)), MAX_SUMS_BYTES)).toString('utf8');
  } catch (e) {
    if ((e as { code?: string }).code) throw e;
    throw errors.upstream(`the upstream SHA256SUMS of ${coordinateName(p)} ${v} failed: ${(e as Error).message}`);
  }
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = SUMS_LINE.exec(line.trim());
    if (m) out.set(m[2]!, m[1]!.toLowerCase());
  }
  return out;
}

/**
 * The platform zip. Its digest is the SHA256SUMS line for the document's `filename` (the file
 * terraform verifies with the upstream's signature), so bytes that do not match are never cached.
 * The cache key needs no upstream document: a cached zip is served with the upstream down.
 */
function archiveSpec(rc: Rc, p: Provider, v: string, pl: Platform) {
  return {
    key: `${p.ns}/${p.type}/${v}/${pl.os}_${pl.arch}.zip`,
    coordinate: { name: coordinateName(p), version: v },
    contentType: 'application/zip',
    format: 'zip' as const,
    async source() {
      const publishedAt = await coolDownTime(rc, p, v);
      const d = await downloadDoc(rc, p, v, pl);
      const hex = (await shasums(rc, p, v, pl)).get(d.parsed.filename);
      if (!hex)
        throw errors.upstream(
          `the upstream SHA256SUMS of ${coordinateName(p)} ${v} does not list ${d.parsed.filename}`,
        );
      if (typeof d.parsed.shasum === 'string' && d.parsed.shasum.toLowerCase() !== hex)
        throw errors.upstream(
          `the upstream download document and SHA256SUMS of ${coordinateName(p)} ${v} disagree on ${d.parsed.filename}`,
        );
      // fromKey: bytes that do not match drop the cached SHA256SUMS too, so a corrected upstream heals itself.
      return {
        url: resolveUpstreamUrl(d.parsed.download_url, d.url, 'download_url'),
        digest: { algorithm: 'sha256' as const, hex, fromKey: sumsSpec(rc, p, v, pl).key },
        publishedAt,
      };
    },
  };
}

export function serveFile(rc: Rc, file: ProviderFile, p: Provider, v: string, pl: Platform): Promise<Reply> {
  if (file === 'archive') return rc.artifact(archiveSpec(rc, p, v, pl));
  return rc.artifact(file === 'shasums' ? sumsSpec(rc, p, v, pl) : signatureSpec(rc, p, v, pl));
}
