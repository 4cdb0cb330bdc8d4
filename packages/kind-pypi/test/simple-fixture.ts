/**
 * A fixture simple index for tests: project pages generated from a list of distributions, in the
 * form the request's Accept asks for (or one fixed form), with the file URLs relative to the page or
 * absolute to another host (a files host, as real indexes have). Files (and their PEP 658
 * `.metadata`) are served below `/files/`.
 */
import crypto from 'node:crypto';
import { makeZip, pathOf, sendBody, type FixtureHandler } from '@hub/testkit';

export interface FixtureDist {
  project: string;
  filename: string;
  body: Buffer;
  /** The wheel's METADATA, served as `<file>.metadata` and announced on the page. */
  metadata?: Buffer;
  requiresPython?: string;
  yanked?: string | true;
  uploadTime?: string;
}

export const sha256 = (b: Buffer): string => crypto.createHash('sha256').update(b).digest('hex');
const b64url = (b: Buffer): string => crypto.createHash('sha256').update(b).digest('base64url');

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export interface WheelOptions {
  requires?: string[];
  requiresPython?: string;
}

/** A pure-Python wheel (METADATA, WHEEL, RECORD with real hashes), as a build backend writes one. */
export function wheel(
  name: string,
  version: string,
  o: WheelOptions = {},
): { filename: string; body: Buffer; metadata: Buffer } {
  const dist = name.replace(/[-_.]+/g, '_');
  const info = `${dist}-${version}.dist-info`;
  const metadata = Buffer.from(
    [
      `Metadata-Version: 2.1`,
      `Name: ${name}`,
      `Version: ${version}`,
      ...(o.requiresPython ? [`Requires-Python: ${o.requiresPython}`] : []),
      ...(o.requires ?? []).map((r) => `Requires-Dist: ${r}`),
      '',
      `${name} for tests`,
      '',
    ].join('\n'),
  );
  const files: Record<string, Buffer> = {
    [`${dist}/__init__.py`]: Buffer.from(`VERSION = ${JSON.stringify(version)}\n`),
    [`${info}/METADATA`]: metadata,
    [`${info}/WHEEL`]: Buffer.from(
      'Wheel-Version: 1.0\nGenerator: hub-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
    ),
  };
  const record = Object.entries(files).map(([p, b]) => `${p},sha256=${b64url(b)},${b.length}`);
  files[`${info}/RECORD`] = Buffer.from([...record, `${info}/RECORD,,`, ''].join('\n'));
  return { filename: `${dist}-${version}-py3-none-any.whl`, body: makeZip(files), metadata };
}

export interface SimpleIndexOptions {
  /** `negotiate` (default): JSON when the Accept names it, else HTML. */
  form?: 'json' | 'html' | 'negotiate';
  /** Absolute files base (another host); default: URLs relative to the page (`../../files/<file>`). */
  filesBase?: () => string;
  /** The page path prefix; default `/simple/`. */
  prefix?: string;
}

function page(
  project: string,
  dists: readonly FixtureDist[],
  json: boolean,
  filesBase: string | null,
): { body: string; type: string } {
  const href = (f: FixtureDist) => (filesBase ? `${filesBase}/${f.filename}` : `../../files/${f.filename}`);
  if (json)
    return {
      type: 'application/vnd.pypi.simple.v1+json',
      body: JSON.stringify({
        meta: { 'api-version': '1.1' },
        name: project,
        versions: [],
        files: dists.map((f) => ({
          filename: f.filename,
          url: href(f),
          hashes: { sha256: sha256(f.body) },
          ...(f.requiresPython ? { 'requires-python': f.requiresPython } : {}),
          yanked: f.yanked ?? false,
          'core-metadata': f.metadata ? { sha256: sha256(f.metadata) } : false,
          size: f.body.length,
          ...(f.uploadTime ? { 'upload-time': f.uploadTime } : {}),
        })),
      }),
    };
  const links = dists.map((f) => {
    const attrs = [`href="${esc(`${href(f)}#sha256=${sha256(f.body)}`)}"`];
    if (f.requiresPython) attrs.push(`data-requires-python="${esc(f.requiresPython)}"`);
    if (f.yanked) attrs.push(`data-yanked="${f.yanked === true ? '' : esc(f.yanked)}"`);
    if (f.metadata) attrs.push(`data-core-metadata="sha256=${sha256(f.metadata)}"`);
    return `<a ${attrs.join(' ')}>${esc(f.filename)}</a><br/>`;
  });
  return {
    type: 'text/html',
    body: `<!DOCTYPE html><html><head><meta name="pypi:repository-version" content="1.0"><title>Links for ${project}</title></head><body>${links.join('\n')}</body></html>`,
  };
}

/** Project pages at `<prefix><project>/` and files at `/files/<file>` (and `/files/<file>.metadata`). */
export function simpleIndex(dists: () => readonly FixtureDist[], o: SimpleIndexOptions = {}): FixtureHandler {
  const prefix = o.prefix ?? '/simple/';
  return (req, res) => {
    const p = pathOf(req.url);
    if (p.startsWith(prefix) && p.endsWith('/')) {
      const project = p.slice(prefix.length, -1);
      const mine = dists().filter((d) => d.project === project);
      if (mine.length === 0) return false;
      const json =
        o.form === 'json' ||
        (o.form !== 'html' && /vnd\.pypi\.simple\.v1\+json/.test(String(req.headers.accept ?? '')));
      const { body, type } = page(project, mine, json, o.filesBase ? o.filesBase() : null);
      sendBody(req, res, 200, { 'content-type': type }, body);
      return true;
    }
    if (p.startsWith('/files/')) {
      const name = p.slice('/files/'.length);
      const meta = name.endsWith('.metadata');
      const d = dists().find((x) => x.filename === (meta ? name.slice(0, -'.metadata'.length) : name));
      const body = d && (meta ? d.metadata : d.body);
      if (!body) return false;
      sendBody(req, res, 200, { 'content-type': 'application/octet-stream' }, body);
      return true;
    }
    return false;
  };
}
