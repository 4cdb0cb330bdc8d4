import fs from 'node:fs';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import {
  pathOf,
  rawRequest,
  sendJson,
  sendText,
  startFixtureUpstream,
  startTestHub,
  type FixtureHandler,
  type FixtureUpstream,
  type TestHub,
} from '@hub/testkit';
import { openvsx, vscode_marketplace } from '../src/index.js';

/** A real (hand-made) VSIX: [Content_Types].xml, extension.vsixmanifest, extension/package.json. */
export const VSIX = fs.readFileSync(
  fileURLToPath(new URL('../../test/fixtures/hubpub.hubext-1.0.0.vsix', import.meta.url)),
);

/** The openvsx extension document as the upstream serves it (upstream URLs everywhere). */
export function extensionDoc(up: string, version: string): Record<string, unknown> {
  const base = `${up}/api/hubpub/hubext`;
  return {
    namespace: 'hubpub',
    name: 'hubext',
    version,
    targetPlatform: 'universal',
    namespaceUrl: `${up}/api/hubpub`,
    reviewsUrl: `${base}/reviews`,
    files: {
      download: `${base}/${version}/file/hubpub.hubext-${version}.vsix`,
      manifest: `${base}/${version}/file/package.json`,
      icon: `${base}/${version}/file/icon.png`,
      sha256: `${base}/${version}/file/hubpub.hubext-${version}.sha256`,
    },
    allVersions: { latest: `${base}/latest`, '1.0.0': `${base}/1.0.0`, '0.9.0': `${base}/0.9.0` },
    versionAlias: ['latest'],
    dependencies: [],
  };
}

const VERSIONS = new Set(['1.0.0', '0.9.0']);

/**
 * One fake upstream for both kinds: the openvsx API and files under /api/, and the gallery's vspackage
 * path under /_apis/. `notzip` answers 200 with text; `gzext` answers the VSIX gzip-encoded.
 */
const handler: FixtureHandler = (req, res, up) => {
  const p = pathOf(req.url);
  let m = /^\/api\/hubpub\/hubext(?:\/([^/]+))?$/.exec(p);
  if (m && m[1] === 'versions') {
    const base = `${up.url}/api/hubpub/hubext`;
    sendJson(req, res, 200, {
      offset: 0,
      totalSize: 2,
      versions: { '1.0.0': `${base}/1.0.0`, '0.9.0': `${base}/0.9.0` },
    });
    return true;
  }
  if (m) {
    const v = m[1] === 'latest' || !m[1] ? '1.0.0' : m[1];
    if (!VERSIONS.has(v)) sendJson(req, res, 404, { error: `Extension not found: hubpub.hubext ${v}` });
    else sendJson(req, res, 200, extensionDoc(up.url, v));
    return true;
  }
  m = /^\/api\/hubpub\/(\w+)\/([^/]+)\/file\/hubpub\.\1-\2\.vsix$/.exec(p);
  if (m) {
    if (m[1] === 'notzip') sendText(req, res, 200, 'this is not a zip file at all');
    else if (m[1] === 'hubext' && m[2] === '1.0.0') {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': VSIX.length });
      res.end(req.method === 'HEAD' ? undefined : VSIX);
    } else sendJson(req, res, 404, { error: 'not found' });
    return true;
  }
  m = /^\/_apis\/public\/gallery\/publishers\/hubpub\/vsextensions\/(\w+)\/([^/]+)\/vspackage$/.exec(p);
  if (m) {
    if (m[2] !== '1.0.0' || !['hubext', 'gzext', 'notzip'].includes(m[1]!)) sendText(req, res, 404);
    else if (m[1] === 'notzip') sendText(req, res, 200, 'this is not a zip file at all');
    else {
      const body = m[1] === 'gzext' ? zlib.gzipSync(VSIX) : VSIX;
      res.writeHead(200, {
        'content-type': 'application/octet-stream',
        'content-length': body.length,
        ...(m[1] === 'gzext' ? { 'content-encoding': 'gzip' } : {}),
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    }
    return true;
  }
  return false;
};

export interface VsixSetup extends TestHub {
  upstream: FixtureUpstream;
  /** `${url}/proxy/ovsx` (openvsx) */
  ovsx: string;
  /** `${url}/proxy/vsm` (vscode-marketplace) */
  vsm: string;
}

/** A fake upstream, and a hub with registries `ovsx` (openvsx) and `vsm` (vscode-marketplace) in front of it. */
export async function setup(t: Test): Promise<VsixSetup> {
  const upstream = await startFixtureUpstream({ handler });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [openvsx, vscode_marketplace],
    registries: [
      { name: 'ovsx', type: 'openvsx', mode: 'proxy', upstream: upstream.url },
      { name: 'vsm', type: 'vscode-marketplace', mode: 'proxy', upstream: upstream.url },
    ],
    config: { auth: { anonymous: ['source:read'] } },
  });
  t.teardown(() => hub.close());
  return { ...hub, upstream, ovsx: `${hub.url}/proxy/ovsx`, vsm: `${hub.url}/proxy/vsm` };
}

export const get = (url: string, headers: Record<string, string> = {}) => rawRequest(url, { headers });
