import { headLooksLike, looksLikeHtml, type Digest } from '@hub/contract';

/** One kind's knowledge of its repository layout. */
export interface PathKindTable {
  id: string;
  description: string;
  /** Index-like paths (mutable, revalidated by TTL), tested against the whole path. */
  index: readonly RegExp[];
  /** Immutable paths named by their own digest (deb `by-hash/`, rpm hashed repodata): the digest is checked. */
  digestOf?(path: string): Digest | undefined;
  /** Whether unknown suffixes may be HTML (generic serves any file; the others serve packages and indexes only). */
  htmlAllowed?: boolean;
  /** Files may be published with PUT in local and hybrid registries (generic); the others are mirrors only. */
  publishable?: boolean;
}

export interface FileShape {
  contentType: string;
  /** Container format the runtime verifies completely before caching. */
  format?: 'gzip' | 'zip';
  /** Magic bytes the head must start with. */
  magic?: { bytes: Buffer; what: string };
}

const m = (hex: string, what: string) => ({ bytes: Buffer.from(hex, 'hex'), what });
const XZ = m('fd377a585a00', 'xz');
const ZSTD = m('28b52ffd', 'zstd');
const BZIP2 = m('425a68', 'bzip2');
const AR = m(Buffer.from('!<arch>\n').toString('hex'), 'ar (deb)');
const RPM = m('edabeedb', 'rpm');

/** Shapes by suffix, longest first. Compressed indexes get a magic check; whole-file checks only where cheap and certain. */
const SHAPES: ReadonlyArray<[RegExp, FileShape]> = [
  [/\.(deb|udeb|ddeb)$/u, { contentType: 'application/vnd.debian.binary-package', magic: AR }],
  [/\.rpm$/u, { contentType: 'application/x-rpm', magic: RPM }],
  [/\.apk$/u, { contentType: 'application/octet-stream', format: 'gzip' }],
  [/\.(tar\.gz|tgz|gz)$/u, { contentType: 'application/gzip', format: 'gzip' }],
  [/\.(zip|jar|whl|nupkg|vsix)$/u, { contentType: 'application/zip', format: 'zip' }],
  [/\.(xz|txz)$/u, { contentType: 'application/x-xz', magic: XZ }],
  [/\.zst$/u, { contentType: 'application/zstd', magic: ZSTD }],
  [/\.bz2$/u, { contentType: 'application/x-bzip2', magic: BZIP2 }],
  [/\.xml$/u, { contentType: 'application/xml' }],
  [/\.(sig|gpg|asc)$/u, { contentType: 'application/pgp-signature' }],
  [/(^|\/)(In)?Release$/u, { contentType: 'text/plain; charset=utf-8' }],
  [/\.(html?)$/u, { contentType: 'text/html' }],
  [/\.txt$/u, { contentType: 'text/plain; charset=utf-8' }],
];

export function shapeOf(path: string): FileShape {
  for (const [re, shape] of SHAPES) if (re.test(path)) return shape;
  return { contentType: 'application/octet-stream' };
}

/** Why `head` is not a file with this path, or null. */
export function headProblem(table: PathKindTable, path: string, head: Buffer): string | null {
  const shape = shapeOf(path);
  if (shape.format) return headLooksLike(shape.format, head);
  if (shape.magic) {
    const { bytes, what } = shape.magic;
    if (head.length < bytes.length || !head.subarray(0, bytes.length).equals(bytes)) {
      return looksLikeHtml(head)
        ? `looks like an HTML page, not ${what}`
        : `does not start with the ${what} magic bytes`;
    }
    return null;
  }
  const htmlOk = table.htmlAllowed === true && /\.html?$/u.test(path);
  if (!htmlOk && looksLikeHtml(head)) return 'looks like an HTML page (an upstream error page?)';
  return null;
}

/** Turns a config glob (`*` within one segment, `**` across segments) into a RegExp over the whole path. */
export function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*' && glob[i + 2] === '/') {
      re += '(?:.*/)?';
      i += 2;
    } else if (c === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/gu, '\\$&');
  }
  return new RegExp(`^${re}$`, 'u');
}

/** Is `path` index-like for this kind, counting the registry's own `index_paths`? */
export function isIndexPath(table: PathKindTable, path: string, extra: readonly RegExp[] = []): boolean {
  return table.index.some((re) => re.test(path)) || extra.some((re) => re.test(path));
}

/** Hex digests by length: the algorithm a content-addressed name uses. */
export function digestFromHex(hex: string, algorithm?: Digest['algorithm']): Digest | undefined {
  const h = hex.toLowerCase();
  if (!/^[0-9a-f]+$/u.test(h)) return undefined;
  const alg = algorithm ?? ({ 40: 'sha1', 64: 'sha256', 128: 'sha512' } as const)[h.length as 40 | 64 | 128];
  const want = { sha1: 40, sha256: 64, sha512: 128 } as const;
  return alg && want[alg] === h.length ? { algorithm: alg, hex: h } : undefined;
}
