/**
 * An upstream's project page (`<upstream>/<project>/`), in either form, read into one model that hub
 * renders again in the form its client asks for. Everything here comes from the upstream and is
 * hostile: file names must be files of this project, hashes are hex, URLs are absolute http(s) and are
 * kept only as the place hub fetches a file from (the runtime's address policy checks each fetch).
 */
import { looksLikeHtml } from '@hub/contract';
import { readAnchors, repositoryVersion } from './html.js';
import { parseDistFile, type DistKind } from './names.js';

export const JSON_TYPE = 'application/vnd.pypi.simple.v1+json';
export const HTML_V1_TYPE = 'application/vnd.pypi.simple.v1+html';

/** What hub asks its upstream for: the JSON form (the only one with `upload-time`), else HTML. */
export const UPSTREAM_ACCEPT = `${JSON_TYPE}, ${HTML_V1_TYPE};q=0.2, text/html;q=0.1`;

export type Hashes = Readonly<Record<string, string>>;

export interface ProjectFile {
  filename: string;
  version: string;
  kind: DistKind;
  format?: 'zip' | 'gzip';
  /** The upstream's URL for the file, fragment removed. A fetch target only: never shown to a client. */
  url: string;
  hashes: Hashes;
  requiresPython?: string;
  /** PEP 592: null when not yanked; the reason ('' when none was given) when yanked. */
  yanked: string | null;
  /** PEP 658/714: the upstream serves `<url>.metadata`; its hashes (possibly none). */
  metadata: { hashes: Hashes } | null;
  /** PEP 700 `upload-time` (JSON form only). */
  uploadTime?: Date;
  size?: number;
}

export interface ProjectPage {
  files: ProjectFile[];
}

const HASH_NAME = /^[a-z0-9_]{1,32}$/;
const HEX = /^[0-9a-f]{8,256}$/;
const HEX_LENGTH: Record<string, number> = { sha1: 40, sha224: 56, sha256: 64, sha384: 96, sha512: 128, md5: 32 };

/** Only well-formed hash entries survive (a known algorithm must also have its length). */
function cleanHashes(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return out;
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    const name = k.toLowerCase();
    const hex = typeof v === 'string' ? v.toLowerCase() : '';
    if (!HASH_NAME.test(name) || !HEX.test(hex)) continue;
    if (HEX_LENGTH[name] !== undefined && HEX_LENGTH[name] !== hex.length) continue;
    out[name] = hex;
  }
  return out;
}

/** `sha256=<hex>` (a URL fragment, a `data-core-metadata` value) as hashes; {} when malformed. */
function hashPair(text: string): Record<string, string> {
  const eq = text.indexOf('=');
  return eq > 0 ? cleanHashes({ [text.slice(0, eq)]: text.slice(eq + 1) }) : {};
}

/** An absolute http(s) URL with the fragment removed, or null. */
function fileUrl(href: string, pageUrl: string): { url: string; fragment: string } | null {
  let u: URL;
  try {
    u = new URL(href, pageUrl);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  const fragment = u.hash.slice(1);
  u.hash = '';
  return { url: u.href, fragment };
}

/** Printable text without control characters, capped; for `requires-python` and yank reasons. */
function cleanText(v: unknown, max: number): string | undefined {
  if (typeof v !== 'string') return undefined;
  return v.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, max);
}

function uploadTimeOf(v: unknown): Date | undefined {
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}T/.test(v)) return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

function jsonFiles(project: string, doc: Record<string, unknown>, pageUrl: string): ProjectFile[] {
  const out: ProjectFile[] = [];
  for (const f of doc.files as unknown[]) {
    if (!f || typeof f !== 'object') continue;
    const r = f as Record<string, unknown>;
    if (typeof r.filename !== 'string' || typeof r.url !== 'string') continue;
    const dist = parseDistFile(project, r.filename);
    const where = fileUrl(r.url, pageUrl);
    if (!dist || !where) continue;
    const hashes = cleanHashes(r.hashes);
    const meta = r['core-metadata'] ?? r['dist-info-metadata'];
    const yanked = r.yanked === true ? '' : typeof r.yanked === 'string' ? cleanText(r.yanked, 1000)! : null;
    out.push({
      filename: r.filename,
      version: dist.version,
      kind: dist.kind,
      ...(dist.format ? { format: dist.format } : {}),
      url: where.url,
      hashes,
      ...(typeof r['requires-python'] === 'string' && r['requires-python']
        ? { requiresPython: cleanText(r['requires-python'], 200)! }
        : {}),
      yanked,
      metadata:
        meta === true ? { hashes: {} } : meta && typeof meta === 'object' ? { hashes: cleanHashes(meta) } : null,
      ...(uploadTimeOf(r['upload-time']) ? { uploadTime: uploadTimeOf(r['upload-time'])! } : {}),
      ...(Number.isSafeInteger(r.size) && (r.size as number) >= 0 ? { size: r.size as number } : {}),
    });
  }
  return out;
}

function htmlFiles(project: string, html: string, pageUrl: string): ProjectFile[] {
  const out: ProjectFile[] = [];
  for (const a of readAnchors(html)) {
    const href = a.attrs.get('href');
    const dist = parseDistFile(project, a.text);
    const where = href ? fileUrl(href, pageUrl) : null;
    if (!dist || !where) continue;
    const meta = a.attrs.get('data-core-metadata') ?? a.attrs.get('data-dist-info-metadata');
    const yanked = a.attrs.get('data-yanked');
    const rp = a.attrs.get('data-requires-python');
    out.push({
      filename: a.text,
      version: dist.version,
      kind: dist.kind,
      ...(dist.format ? { format: dist.format } : {}),
      url: where.url,
      hashes: hashPair(where.fragment),
      ...(rp ? { requiresPython: cleanText(rp, 200)! } : {}),
      yanked: yanked === undefined ? null : cleanText(yanked, 1000)!,
      metadata: meta === undefined || meta === 'false' ? null : { hashes: meta === 'true' ? {} : hashPair(meta) },
    });
  }
  return out;
}

const isJson = (contentType: string | undefined) => /json/i.test(contentType ?? '');

function parseJson(body: Buffer): Record<string, unknown> | null {
  try {
    const doc = JSON.parse(body.toString('utf8')) as unknown;
    return doc && typeof doc === 'object' && Array.isArray((doc as Record<string, unknown>).files)
      ? (doc as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** Why `body` is not a project page of `project` (an error page served with 200, say), or null. */
export function checkPage(project: string, body: Buffer, contentType: string | undefined): string | null {
  if (isJson(contentType)) return parseJson(body) ? null : 'not a PEP 691 project page (no "files" list)';
  if (!looksLikeHtml(body) && !/<a[\s>]/i.test(body.toString('utf8', 0, 4096)))
    return 'neither a PEP 691 JSON nor a PEP 503 HTML page';
  const html = body.toString('utf8');
  if (repositoryVersion(html) !== null) return null;
  return readAnchors(html).some((a) => parseDistFile(project, a.text))
    ? null
    : 'an HTML page without a repository version or any file of the project';
}

/** The page as a model; `pageUrl` resolves relative file URLs. Call only on a page `checkPage` passed. */
export function parsePage(
  project: string,
  body: Buffer,
  contentType: string | undefined,
  pageUrl: string,
): ProjectPage {
  if (isJson(contentType)) return { files: jsonFiles(project, parseJson(body) ?? { files: [] }, pageUrl) };
  return { files: htmlFiles(project, body.toString('utf8'), pageUrl) };
}

/** The digest hub verifies a file against: sha256 where the upstream gives it, else sha512, else sha1. */
export function digestOf(hashes: Hashes): { algorithm: 'sha256' | 'sha512' | 'sha1'; hex: string } | undefined {
  for (const algorithm of ['sha256', 'sha512', 'sha1'] as const)
    if (hashes[algorithm]) return { algorithm, hex: hashes[algorithm] };
  return undefined;
}
