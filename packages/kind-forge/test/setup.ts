import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { Test } from 'tap';
import {
  pathOf,
  rawRequest,
  startFixtureUpstream,
  startTestHub,
  type FixtureUpstream,
  type TestHub,
} from '@hub/testkit';
import { forgejo, github, gitlab } from '../src/index.js';

/** A real gzip stream (the usual shape of a release asset); deterministic bytes. */
export const ASSET = gzipSync(Buffer.from('hub forge fixture\n'.repeat(4096)), { level: 9 });
/** The token configured as `upstream_auth`; it must reach the forge and never the storage host. */
export const SECRET = 'secret';
/** The storage host's address: an origin the registry's `allowed_origins` names, as an operator would. */
export const STORAGE_HOST = '127.0.0.2';

export interface ForgeSetup extends TestHub {
  /** The fake forge: answers asset paths with a 302 to the storage host (or to the forbidden one). */
  forge: FixtureUpstream;
  storage: FixtureUpstream;
  /** An internal service on the forge's own address (another port), which redirects must not reach. */
  forbidden: FixtureUpstream;
  /** `${url}/proxy/<kind>` */
  base: string;
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body?: Buffer,
): true {
  res.writeHead(status, { 'content-length': String(body?.length ?? 0), ...headers });
  res.end(req.method === 'HEAD' ? undefined : body);
  return true;
}

/** A storage host serving `/signed/<anything>?sig=...` with ASSET, and 403 without the signature. */
function storageHandler(req: IncomingMessage, res: ServerResponse): boolean {
  const url = new URL(req.url ?? '/', 'http://x');
  if (!url.pathname.startsWith('/signed/')) return false;
  if (url.searchParams.get('sig') !== 'sig123')
    return send(req, res, 403, { 'content-type': 'text/plain' }, Buffer.from('bad signature'));
  // An error page served with a binary content type: only the first-bytes check can catch it.
  if (url.pathname.includes('errorpage'))
    return send(
      req,
      res,
      200,
      { 'content-type': 'application/octet-stream' },
      Buffer.from('<!DOCTYPE html><html><body>Error</body></html>'),
    );
  return send(req, res, 200, { 'content-type': 'application/octet-stream' }, ASSET);
}

/**
 * The fake forge. Asset paths (`releases/download` and GitLab's `downloads`) 302 to the storage host
 * with a signed query; names containing `evil` redirect to the internal service instead (`unspecified`: through
 * 0.0.0.0, which Linux connects to the local host); `missing` is 404.
 */
function forgeHandler(storage: () => string, forbidden: () => string) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const path = pathOf(req.url);
    if (!/\/releases\/download\/|\/downloads\//.test(path)) return false;
    const file = path.slice(path.lastIndexOf('/') + 1);
    if (file.includes('missing'))
      return send(req, res, 404, { 'content-type': 'text/plain' }, Buffer.from('Not Found'));
    const internal = file.includes('unspecified') ? forbidden().replace('127.0.0.1', '0.0.0.0') : forbidden();
    const target = file.includes('evil') ? internal : storage();
    return send(req, res, 302, { location: `${target}/signed/${encodeURIComponent(file)}?sig=sig123` });
  };
}

/** A hub with one registry of `kind` named after it, in front of the fake forge, and `upstream_auth` unless told otherwise. */
export async function setup(
  t: Test,
  o: {
    kind?: 'github' | 'gitlab' | 'forgejo';
    auth?: boolean;
    allowInternal?: boolean;
    config?: Record<string, Record<string, unknown>>;
  } = {},
): Promise<ForgeSetup> {
  const kind = o.kind ?? 'github';
  const storage = await startFixtureUpstream({ host: STORAGE_HOST, handler: storageHandler });
  t.teardown(() => storage.close());
  const forbidden = await startFixtureUpstream({ handler: storageHandler });
  t.teardown(() => forbidden.close());
  const forge = await startFixtureUpstream({
    handler: forgeHandler(
      () => storage.url,
      () => forbidden.url,
    ),
  });
  t.teardown(() => forge.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [github, gitlab, forgejo],
    registries: [
      {
        name: kind,
        type: kind,
        mode: 'proxy',
        upstream: forge.url,
        allowed_origins: [storage.url, ...(o.allowInternal ? [forbidden.url] : [])],
        ...(o.auth === false ? {} : { upstream_auth: { token: SECRET } }),
      },
    ],
    config: { auth: { anonymous: ['source:read'] }, ...o.config },
  });
  t.teardown(() => hub.close());
  return { ...hub, forge, storage, forbidden, base: `${hub.url}/proxy/${kind}` };
}

/** GET with the path sent exactly as written (hostile-path tests need that). */
export const get = (url: string, headers: Record<string, string> = {}) => rawRequest(url, { headers });
