import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import admin from '@hub/admin';
import { github } from '@hub/kind-forge';
import { deb, generic } from '@hub/kind-path';
import npm from '@hub/kind-npm';
import { startFixtureUpstream, startTestHub } from '@hub/testkit';
import audit, { MAX_VERSIONS_PER_PACKAGE } from '../src/index.js';
import { AUDIT_TEST_CONFIG } from './setup.js';
import publishing from '@hub/publishing';

const json = async (url: string, token: string, method = 'GET', body?: unknown) => {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as any };
};

t.test(
  'path kinds: a HEAD per held file; index-like files are not probed; forge and local registries are skipped',
  async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'hub-audit-path-'));
    t.teardown(() => rmSync(root, { recursive: true, force: true }));
    mkdirSync(join(root, 'pool'), { recursive: true });
    mkdirSync(join(root, 'dists/stable'), { recursive: true });
    for (const f of ['a.bin', 'b.bin', 'c.bin']) writeFileSync(join(root, 'pool', f), `file ${f}\n`);
    writeFileSync(join(root, 'dists/stable/Release'), 'Suite: stable\n');
    const upstream = await startFixtureUpstream({ root });
    t.teardown(() => upstream.close());
    const hub = await startTestHub({
      dir: t.testdir(),
      plugins: [generic, deb, github, npm, admin, audit, publishing],
      registries: [
        { name: 'files', type: 'generic', mode: 'proxy', upstream: upstream.url },
        { name: 'debs', type: 'deb', mode: 'proxy', upstream: upstream.url },
        { name: 'gh', type: 'github', mode: 'proxy', upstream: upstream.url },
        { name: 'mine', type: 'npm', mode: 'local' },
      ],
      config: { auth: { anonymous: ['source:read'] }, upstream_audit: { ...AUDIT_TEST_CONFIG, on_confirmed: 'block' } },
    });
    t.teardown(() => hub.close());
    for (const f of ['a.bin', 'b.bin', 'c.bin']) t.equal((await fetch(`${hub.url}/proxy/files/pool/${f}`)).status, 200);
    t.equal(
      (await fetch(`${hub.url}/proxy/debs/dists/stable/Release`)).status,
      200,
      'an index file held by the deb registry',
    );
    await hub.hub.artifacts.idle();
    unlinkSync(join(root, 'pool/b.bin'));
    upstream.requests.length = 0;

    const sweeps = (await json(`${hub.url}/api/v1/admin/upstream/sweep`, hub.adminToken, 'POST', {})).json.sweeps;
    t.match(sweeps, [
      { registry: 'files', outcome: 'ok', probed: 3, conclusive: 3, missing: 1 },
      { registry: 'debs', outcome: 'ok', probed: 0 }, // index files are documents, not held artifacts
      { registry: 'gh', outcome: 'skipped', reason: 'forge kinds are never probed' },
      { registry: 'mine', outcome: 'skipped', reason: 'local registries have no upstream' },
    ]);
    t.same(
      upstream.requests.map((r) => `${r.method} ${r.url}`).sort(),
      ['HEAD /pool/a.bin', 'HEAD /pool/b.bin', 'HEAD /pool/c.bin'],
      'one HEAD per held file, nothing else',
    );
    const rows = (await json(`${hub.url}/api/v1/admin/upstream/disappeared`, hub.adminToken)).json.rows;
    t.match(
      rows,
      [
        {
          registry: 'files',
          package_name: 'repo',
          version: 'pool/b.bin',
          state: 'missing',
          rung: 'file',
          detail: 'HEAD answered 404',
        },
      ],
      'the version is the file path',
    );
    const recheckForge = await json(`${hub.url}/api/v1/admin/upstream/recheck`, hub.adminToken, 'POST', {
      registry: 'gh',
      package_name: 'octo/tool',
    });
    t.match(recheckForge, { status: 400, json: { error: { code: 'bad_request', message: /never probed/ } } });
    const health = (await json(`${hub.url}/api/v1/admin/health`, hub.adminToken)).json;
    t.match(
      health.registries.find((r: any) => r.name === 'gh'),
      { audit: { audited: false, reason: 'forge kinds are never probed' } },
    );
  },
);

/** A hub with one generic registry `files` over an empty `pool/` upstream folder the test fills. */
async function filesHub(t: Test, upstreamAudit: Record<string, unknown>) {
  const root = mkdtempSync(join(tmpdir(), 'hub-audit-path-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'pool'));
  const upstream = await startFixtureUpstream({ root });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [generic, admin, audit],
    registries: [{ name: 'files', type: 'generic', mode: 'proxy', upstream: upstream.url }],
    config: { auth: { anonymous: ['source:read'] }, upstream_audit: { ...AUDIT_TEST_CONFIG, ...upstreamAudit } },
  });
  t.teardown(() => hub.close());
  return { root, hub, upstream };
}

t.test('path kinds under block: only the disappeared file is blocked, not the whole repository', async (t) => {
  const files = ['a', 'b', 'c', 'd'].map((x) => `pool/${x}.bin`);
  const { root, hub } = await filesHub(t, { on_confirmed: 'block', min_probed: 1 });
  for (const f of files) writeFileSync(join(root, f), f);
  for (const f of files) await (await fetch(`${hub.url}/proxy/files/${f}`)).arrayBuffer();
  await hub.hub.artifacts.idle();
  unlinkSync(join(root, 'pool/b.bin'));
  for (let i = 0; i < 2; i++) await json(`${hub.url}/api/v1/admin/upstream/sweep`, hub.adminToken, 'POST', {});
  const blocks = (await json(`${hub.url}/api/v1/admin/blocks`, hub.adminToken)).json.blocks;
  t.match(blocks, [{ package_name: 'repo', path: 'pool/b.bin', blocked_by: 'system:upstream-audit' }]);
  t.equal(blocks.length, 1);
  t.equal(
    (await fetch(`${hub.url}/proxy/files/pool/b.bin`)).status,
    403,
    'the cached copy of the gone file is refused',
  );
  t.equal((await fetch(`${hub.url}/proxy/files/pool/a.bin`)).status, 200, 'the rest of the repository is served');
});

t.test(`at most ${MAX_VERSIONS_PER_PACKAGE} files per package per sweep`, async (t) => {
  const { root, hub, upstream } = await filesHub(t, {});
  for (let i = 0; i < 30; i++) {
    writeFileSync(join(root, `pool/${i}.bin`), String(i));
    await (await fetch(`${hub.url}/proxy/files/pool/${i}.bin`)).arrayBuffer();
  }
  await hub.hub.artifacts.idle();
  upstream.requests.length = 0;
  await json(`${hub.url}/api/v1/admin/upstream/sweep`, hub.adminToken, 'POST', {});
  t.equal(
    upstream.count((r) => r.method === 'HEAD'),
    MAX_VERSIONS_PER_PACKAGE,
  );
});
