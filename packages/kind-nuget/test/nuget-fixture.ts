/**
 * Serves test/fixtures/upstream/ the way a NuGet v3 server does (see fixtures/build.sh for the layout):
 *   /v3/registration-gz-semver2/...  gzipped with `Content-Encoding: gzip` whatever the client asked
 *                                    for, as the gallery's gz hives are stored
 *   /query?q=&skip=&take=            search: results whose id contains q (case-insensitive)
 *   /v3-flatcontainer/.../icon       image/png
 *   everything else                  the file below root ({{UPSTREAM}} filled in)
 */
import { promises as fsp } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import zlib from 'node:zlib';
import {
  fillTemplate,
  pathOf,
  resolveUnderRoot,
  sendBody,
  sendFile,
  serveStatic,
  type FixtureHandler,
  type FixtureUpstream,
} from '@hub/testkit';

async function serveGzipped(
  req: IncomingMessage,
  res: ServerResponse,
  up: FixtureUpstream,
  root: string,
): Promise<boolean> {
  const hit = await resolveUnderRoot(root, pathOf(req.url));
  if (!hit) return false;
  const body = zlib.gzipSync(fillTemplate(await fsp.readFile(hit.file), up.url));
  sendBody(req, res, 200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, body, {
    lastModified: hit.stat.mtime,
  });
  return true;
}

async function serveSearch(
  req: IncomingMessage,
  res: ServerResponse,
  up: FixtureUpstream,
  root: string,
): Promise<void> {
  const q = new URL(req.url ?? '/', 'http://x').searchParams;
  const doc = JSON.parse(fillTemplate(await fsp.readFile(`${root}/query.json.tmpl`), up.url).toString('utf8')) as {
    totalHits: number;
    data: Array<{ id: string }>;
  };
  const term = (q.get('q') ?? '').toLowerCase();
  const hits = doc.data.filter((d) => d.id.toLowerCase().includes(term));
  const skip = Number(q.get('skip') ?? 0);
  const take = Number(q.get('take') ?? 20);
  sendBody(
    req,
    res,
    200,
    { 'Content-Type': 'application/json' },
    JSON.stringify({ ...doc, totalHits: hits.length, data: hits.slice(skip, skip + take) }),
    { conditional: false },
  );
}

export function nugetFixtureHandler(root: string): FixtureHandler {
  return async (req, res, up) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    const p = pathOf(req.url);
    if (p === '/query') {
      await serveSearch(req, res, up, root);
      return true;
    }
    if (p.startsWith('/v3/registration-gz-semver2/')) return serveGzipped(req, res, up, root);
    if (p.endsWith('/icon')) {
      const hit = await resolveUnderRoot(root, p);
      if (!hit) return false;
      await sendFile(req, res, up, hit.file, { 'Content-Type': 'image/png' });
      return true;
    }
    return serveStatic(root, req, res, up);
  };
}
