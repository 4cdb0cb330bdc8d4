import type { Reply } from '@hub/contract';
import type { Coding, Representations } from '../cache/metadata-representation.js';

/** Below this a compressed body saves less than its headers cost. */
const MIN_COMPRESS_BYTES = 1024;
/** Types worth compressing: listings are JSON, XML, HTML or text; an index that is already gzip (rubygems' specs) is not. */
const COMPRESSIBLE = /json|xml|html|text\/|javascript/i;
const SUFFIX: Record<Coding, string> = { gzip: '-gz', br: '-br' };

/** Parsed Accept-Encoding values, by their text: clients send one or two spellings, over and over. */
const codingsSeen = new Map<string, Coding | null>();

/**
 * The coding `accept-encoding` prefers among brotli and gzip (RFC 9110 12.5.3: q-values, `*`, q=0 refuses), or null
 * for identity. On equal weights gzip wins: brotli saves about a quarter more bytes, but pnpm took 10.4 s instead of
 * 7.9 s to install the bench project through a warm hub when its packuments came as brotli (bench/README.md).
 */
export function preferredCoding(header: string | undefined): Coding | null {
  if (!header) return null;
  const seen = codingsSeen.get(header);
  if (seen !== undefined) return seen;
  const q: Record<string, number> = {};
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    let weight = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p);
      if (m) weight = Math.min(1, Number(m[1]) || 0);
    }
    q[name] = weight;
  }
  const of = (c: string) => q[c] ?? q['*'] ?? 0;
  const br = of('br');
  const gz = Math.max(of('gzip'), q['x-gzip'] ?? 0);
  const out: Coding | null = br > gz ? 'br' : gz > 0 ? 'gzip' : null;
  if (codingsSeen.size < 256) codingsSeen.set(header, out);
  return out;
}

/**
 * Whether `ifNoneMatch` names the representation `tag` (in any of its codings): weak comparison, as HTTP prescribes
 * for If-None-Match (a `W/` prefix is ignored), over a comma-separated list, `*` matching any.
 */
export function matchesAny(ifNoneMatch: string, tag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  for (let raw of ifNoneMatch.split(',')) {
    raw = raw.trim();
    if (raw.startsWith('W/')) raw = raw.slice(2);
    if (raw.length < 2 || raw[0] !== '"' || raw[raw.length - 1] !== '"') continue;
    const opaque = raw.slice(1, -1);
    if (opaque === tag || opaque === `${tag}${SUFFIX.gzip}` || opaque === `${tag}${SUFFIX.br}`) return true;
  }
  return false;
}

const withVary = (vary: string | undefined, name: string) =>
  !vary
    ? name
    : vary.split(',').some((v) => v.trim().toLowerCase() === name.toLowerCase() || v.trim() === '*')
      ? vary
      : `${vary}, ${name}`;

/** Headers a 304 repeats from the 200 it stands for (RFC 9110 15.4.5). */
const KEPT_ON_304 = ['cache-control', 'content-location', 'date', 'etag', 'expires', 'vary', 'x-hub-stale'];

/**
 * A kind's 200 with a memoised listing body (decision 0074), answered from its representation: a 304 when
 * If-None-Match names it, else the coding the client prefers (built once), with a strong ETag per coding and
 * `Vary: Accept-Encoding`. Any other reply is returned as it is.
 */
export function representationReply(
  reply: Reply,
  reqHeaders: Readonly<Record<string, string | string[] | undefined>>,
  reps: Representations,
): Reply | Promise<Reply> {
  const body = reply.body;
  if (reply.status !== 200 || !Buffer.isBuffer(body) || !reps.has(body)) return reply;
  const h = reply.headers;
  if (h['content-encoding'] !== undefined || h['content-range'] !== undefined) return reply;
  // The kind's own validator, when it sends one, names the bytes already; otherwise the representation's.
  const own = h.etag;
  const weak = own?.startsWith('W/') ? 'W/' : '';
  const tag = own ? own.slice(weak.length).replace(/^"|"$/g, '') : reps.tag(body)!;
  const inm = reqHeaders['if-none-match'];
  const compressible = body.length >= MIN_COMPRESS_BYTES && COMPRESSIBLE.test(h['content-type'] ?? '');
  const ae = reqHeaders['accept-encoding'];
  const coding = compressible ? preferredCoding(typeof ae === 'string' ? ae : undefined) : null;
  const headers: Record<string, string> = { ...h, etag: `${weak}"${tag}${coding ? SUFFIX[coding] : ''}"` };
  if (compressible) headers.vary = withVary(h.vary, 'Accept-Encoding');
  if (typeof inm === 'string' && matchesAny(inm, tag)) {
    const kept: Record<string, string> = {};
    for (const k of KEPT_ON_304) if (headers[k] !== undefined) kept[k] = headers[k]!;
    return { status: 304, headers: kept, body: null };
  }
  if (!coding) return { status: 200, headers, body };
  headers['content-encoding'] = coding;
  const encoded = reps.encoded(body, coding)!;
  return Buffer.isBuffer(encoded)
    ? { status: 200, headers, body: encoded }
    : encoded.then((b) => ({ status: 200, headers, body: b }));
}
