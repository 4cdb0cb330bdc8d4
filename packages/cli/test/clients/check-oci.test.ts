/**
 * `hub check --oci` against a real hub with the oci kind over a fixture registry: the HTTP check reads the
 * tag's manifest, the tool check runs skopeo (Debian's skopeo) through hub's /v2/ mount, or is a skip.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import oci from '@hub/kind-oci';
import { pathOf, sendBody, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { lines, runHub } from '../run-hub.js';

const MANIFEST_TYPE = 'application/vnd.oci.image.manifest.v1+json';
const config = Buffer.from('{"architecture":"amd64","os":"linux"}');
const manifest = Buffer.from(
  JSON.stringify({
    schemaVersion: 2,
    mediaType: MANIFEST_TYPE,
    config: {
      mediaType: 'application/vnd.oci.image.config.v1+json',
      digest: `sha256:${createHash('sha256').update(config).digest('hex')}`,
      size: config.length,
    },
    layers: [],
  }),
);
const digest = `sha256:${createHash('sha256').update(manifest).digest('hex')}`;

const hasSkopeo = (() => {
  try {
    execFileSync('skopeo', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

t.test('hub check --oci: the manifest over HTTP, then skopeo inspect through /v2/<registry>/', async (t) => {
  const up = await startFixtureUpstream({
    handler: (req, res) => {
      const p = pathOf(req.url);
      if (p === '/v2/')
        return (sendBody(req, res, 200, { 'content-type': 'application/json' }, Buffer.from('{}')), true);
      if (p === '/v2/hub/demo/manifests/1.0' || p === `/v2/hub/demo/manifests/${digest}`)
        return (sendBody(req, res, 200, { 'content-type': MANIFEST_TYPE }, manifest), true);
      return false;
    },
  });
  t.teardown(() => up.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [oci],
    registries: [{ name: 'dock', type: 'oci', upstream: up.url }],
  });
  t.teardown(() => hub.close());
  const token = await hub.token('ci');
  // skopeo's HOME: nothing of the machine's container configuration.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-check-oci-'));
  t.teardown(() => fs.rmSync(home, { recursive: true, force: true }));
  const r = await runHub(['check', '--oci', 'dock', '--oci-image', 'hub/demo:1.0'], {
    HUB_URL: hub.url,
    HUB_TOKEN: token,
    HOME: home,
    PATH: process.env.PATH,
    TMPDIR: home,
  });
  const out = lines(r.stdout);
  t.match(
    out[0],
    new RegExp(
      `^PASS dock http: GET /proxy/dock/hub/demo/manifests/1\\.0.*: 200, ${MANIFEST_TYPE.replace(/[.+]/g, '\\$&')}`,
    ),
  );
  if (hasSkopeo)
    t.match(
      out[1],
      /^PASS dock tool: skopeo inspect --raw docker:\/\/127\.0\.0\.1:\d+\/dock\/hub\/demo:1\.0: a schema 2 manifest/,
    );
  else t.match(out[1], /^SKIP dock tool: skopeo is not installed/);
  t.equal(r.code, 0, r.stdout + r.stderr);

  const missing = await runHub(['check', '--oci', 'dock', '--oci-image', 'hub/demo:9.9'], {
    HUB_URL: hub.url,
    HUB_TOKEN: token,
    HOME: home,
    PATH: process.env.PATH,
  });
  t.match(lines(missing.stdout)[0], /dock http: .*404/, 'a tag the upstream lacks: the 404 is named');
  t.equal(
    (await runHub(['check', '--oci', 'dock', '--oci-image', 'hub/demo'], { HUB_URL: hub.url, HUB_TOKEN: token })).code,
    2,
    'no tag: bad usage',
  );
});
