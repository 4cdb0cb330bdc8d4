/**
 * A registry in a fixture upstream: `/v2/`, manifests by tag and digest, blobs, tag lists, from images held in
 * memory. With `bearer`, every request needs a token from the token service (another loopback server), the way
 * public registries ask: `WWW-Authenticate: Bearer realm=...,service=...,scope=...`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startFixtureUpstream, type FixtureHandler, type FixtureUpstream } from '@hub/testkit';
import type { Blob, Image } from './image.js';

export interface FixtureRegistry {
  /** repository -> tag -> image */
  repos: Map<string, Map<string, Image>>;
  handler: FixtureHandler;
  /** Set to require tokens from this realm (URL), issued by `startTokenService`. */
  bearer?: { realm: string; valid: Set<string> };
}

function send(req: IncomingMessage, res: ServerResponse, b: Blob, type = b.mediaType) {
  res.writeHead(200, { 'content-type': type, 'content-length': b.body.length, 'docker-content-digest': b.digest });
  res.end(req.method === 'HEAD' ? undefined : b.body);
}

function ociError(res: ServerResponse, status: number, code: string, headers: Record<string, string> = {}) {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ errors: [{ code, message: code.toLowerCase() }] }));
}

export function fixtureRegistry(images: Record<string, Record<string, Image>> = {}): FixtureRegistry {
  const repos = new Map(Object.entries(images).map(([repo, tags]) => [repo, new Map(Object.entries(tags))]));
  const reg: FixtureRegistry = {
    repos,
    handler(req, res) {
      const url = new URL(req.url ?? '/', 'http://x');
      if (!url.pathname.startsWith('/v2/')) return false;
      const m = /^\/v2\/(.+)\/(manifests|blobs|tags)\/([^/]+)$/.exec(url.pathname);
      if (reg.bearer) {
        const auth = req.headers.authorization ?? '';
        if (!auth.startsWith('Bearer ') || !reg.bearer.valid.has(auth.slice(7))) {
          const scope = m ? `,scope="repository:${m[1]}:pull"` : '';
          ociError(res, 401, 'UNAUTHORIZED', {
            'www-authenticate': `Bearer realm="${reg.bearer.realm}",service="fixture"${scope}`,
          });
          return true;
        }
      }
      if (url.pathname === '/v2/') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return true;
      }
      if (!m) return false;
      const [, repo, what, ref] = m as unknown as [string, string, string, string];
      const tags = repos.get(repo);
      if (!tags) return (ociError(res, 404, 'NAME_UNKNOWN'), true);
      const all = [...tags.values()];
      if (what === 'tags') {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ name: repo, tags: [...tags.keys()] }));
        return true;
      }
      if (what === 'manifests') {
        const byTag = tags.get(ref);
        const found =
          byTag?.index ?? all.flatMap((i) => [i.index, ...i.manifests.values()]).find((b) => b.digest === ref);
        if (!found) return (ociError(res, 404, 'MANIFEST_UNKNOWN'), true);
        send(req, res, found);
        return true;
      }
      const b = all.map((i) => i.blobs.get(ref)).find(Boolean);
      if (!b) return (ociError(res, 404, 'BLOB_UNKNOWN'), true);
      send(req, res, b, 'application/octet-stream');
      return true;
    },
  };
  return reg;
}

/** A token service on its own loopback server: Basic `user:pass` (or anonymous when `user` is unset) buys a token. */
export async function startTokenService(
  reg: FixtureRegistry,
  o: { user?: string; pass?: string; expiresIn?: number; host?: string } = {},
): Promise<FixtureUpstream & { issued: string[] }> {
  const issued: string[] = [];
  const up = await startFixtureUpstream({
    host: o.host,
    handler: (req, res) => {
      const want = o.user === undefined ? undefined : `Basic ${Buffer.from(`${o.user}:${o.pass}`).toString('base64')}`;
      if (want !== undefined && req.headers.authorization !== want) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"details":"bad credentials"}');
        return true;
      }
      const token = `tok-${issued.length + 1}-${Math.random().toString(36).slice(2)}`;
      issued.push(token);
      reg.bearer!.valid.add(token);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ token, expires_in: o.expiresIn ?? 300 }));
      return true;
    },
  });
  reg.bearer = { realm: `${up.url}/token`, valid: new Set() };
  return Object.assign(up, { issued });
}
