/**
 * Content drift: a sweep compares the digest the upstream now declares for a held version (npm
 * `integrity`, cargo `cksum`) with the bytes hub holds. A change is reported once (event, metric, health)
 * and, with on_content_change = "block", blocks that version.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import admin from '@hub/admin';
import cargo from '@hub/kind-cargo';
import rubygems from '@hub/kind-rubygems';
import { startFixtureUpstream, startTestHub } from '@hub/testkit';
import audit from '../src/index.js';
import { AUDIT_TEST_CONFIG, holdAll, setup, type AuditSetup } from './setup.js';

const events = async (s: Pick<AuditSetup, 'api'>, type: string) =>
  (await s.api('GET', `/api/v1/admin/events?type=${type}`)).json.events as any[];
const OTHER = createHash('sha512').update('other bytes').digest();

/** The upstream republishes hubdemo 1.1.0: its packument now declares another integrity. */
function republishWithOtherBytes(s: AuditSetup) {
  const file = join(s.root, 'hubdemo.json.tmpl');
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  doc.versions['1.1.0'].dist.integrity = `sha512-${OTHER.toString('base64')}`;
  writeFileSync(file, JSON.stringify(doc));
}

t.test(
  'npm: a changed integrity is reported once, shows in health and metrics; the version still downloads under audit',
  async (t) => {
    const s = await setup(t);
    await holdAll(s);
    await s.api('POST', '/api/v1/admin/upstream/sweep', { registry: 'npm' });
    t.same(await events(s, 'package_content_changed'), [], 'the integrity hub verified: nothing to report');

    republishWithOtherBytes(s);
    await s.api('POST', '/api/v1/admin/upstream/sweep', { registry: 'npm' });
    const held = createHash('sha512')
      .update(
        readFileSync(
          fileURLToPath(
            new URL('../../../kind-npm/test/fixtures/upstream/hubdemo/-/hubdemo-1.1.0.tgz', import.meta.url),
          ),
        ),
      )
      .digest('hex');
    const [ev, ...more] = await events(s, 'package_content_changed');
    t.same(more, [], 'one event');
    t.match(ev?.data, {
      registry: 'npm',
      package_name: 'hubdemo',
      version: '1.1.0',
      coordinate: 'hubdemo@1.1.0',
      algorithm: 'sha512',
      held_digest: held,
      upstream_digest: OTHER.toString('hex'),
      policy: 'audit',
    });
    t.notOk('blocked_versions' in (ev?.data ?? {}), 'nothing blocked under audit');
    t.match((await s.api('GET', '/api/v1/admin/health')).json.registries, [
      { name: 'npm', audit: { content_changed: 1 } },
    ]);
    t.match(await (await fetch(`${s.url}/metrics`)).text(), /hub_upstream_content_changed_total\{registry="npm"\} 1/);
    t.equal(await s.fetchTarball('hubdemo', '1.1.0'), 200, 'the held bytes are still served');

    await s.api('POST', '/api/v1/admin/upstream/sweep', { registry: 'npm' });
    t.equal((await events(s, 'package_content_changed')).length, 1, 'the same change is not reported twice');
    s.republish('hubdemo');
    await s.api('POST', '/api/v1/admin/upstream/sweep', { registry: 'npm' });
    t.match(
      (await s.api('GET', '/api/v1/admin/health')).json.registries,
      [{ name: 'npm', audit: { content_changed: 0 } }],
      'the upstream declares the held digest again: cleared',
    );
  },
);

t.test('npm with on_content_change = "block": the changed version is blocked as system:upstream-audit', async (t) => {
  const s = await setup(t, { upstreamAudit: { on_content_change: 'block' } });
  await holdAll(s);
  republishWithOtherBytes(s);
  await s.api('POST', '/api/v1/admin/upstream/sweep', { registry: 'npm' });
  const [ev] = await events(s, 'package_content_changed');
  t.match(ev?.data, {
    version: '1.1.0',
    policy: 'block',
    blocked_versions: ['1.1.0'],
    blocked_by: 'system:upstream-audit',
  });
  t.equal(await s.fetchTarball('hubdemo', '1.1.0'), 403, 'the changed version is refused');
  t.equal(await s.fetchTarball('hubdemo', '1.0.0'), 200, 'the other version is not');
  t.match(await s.hub.services.blocks.list(), [
    { registry: 'npm', package_name: 'hubdemo', version: '1.1.0', blocked_by: 'system:upstream-audit' },
  ]);
});

t.test('cargo: a changed cksum in the index is a content change', async (t) => {
  const FIX = fileURLToPath(new URL('../../../kind-cargo/test/fixtures/upstream/', import.meta.url));
  let changed = false;
  const upstream = await startFixtureUpstream({
    root: FIX,
    handler: async (req, res) => {
      if (!changed || req.url !== '/index/pe/rc/percent-encoding') return false;
      const lines = readFileSync(join(FIX, 'index/pe/rc/percent-encoding'), 'utf8').replace(
        /"cksum":"[0-9a-f]{64}"/g,
        `"cksum":"${'ab'.repeat(32)}"`,
      );
      res.writeHead(200, { 'content-type': 'text/plain' }).end(lines);
      return true;
    },
  });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [cargo, admin, audit],
    registries: [
      { name: 'crates', type: 'cargo', mode: 'proxy', upstream: `${upstream.url}/index`, metadata_ttl_secs: 0 },
    ],
    config: { auth: { anonymous: ['source:read'] }, upstream_audit: AUDIT_TEST_CONFIG },
  });
  t.teardown(() => hub.close());
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${hub.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${hub.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, json: (await res.json()) as any };
  };
  for (const [c, v] of [
    ['percent-encoding', '2.2.0'],
    ['form_urlencoded', '1.1.0'],
  ])
    t.equal(
      await fetch(`${hub.url}/proxy/crates/api/v1/crates/${c}/${v}/download`).then(
        async (r) => (await r.arrayBuffer(), r.status),
      ),
      200,
    );
  await hub.hub.artifacts.idle();
  await api('POST', '/api/v1/admin/upstream/sweep', { registry: 'crates' });
  t.same(await events({ api }, 'package_content_changed'), [], 'cksums match the held .crate files');
  changed = true;
  await api('POST', '/api/v1/admin/upstream/sweep', { registry: 'crates' });
  const evs = await events({ api }, 'package_content_changed');
  t.equal(evs.length, 1);
  t.match(evs[0]?.data, {
    package_name: 'percent-encoding',
    version: '2.2.0',
    algorithm: 'sha256',
    upstream_digest: 'ab'.repeat(32),
  });
});

t.test('rubygems: a changed checksum in /info/<gem> is a content change', async (t) => {
  const FIX = fileURLToPath(new URL('../../../kind-rubygems/test/fixtures/upstream/', import.meta.url));
  let changed = false;
  const upstream = await startFixtureUpstream({
    root: FIX,
    handler: async (req, res) => {
      if (!changed || req.url !== '/info/hubdep') return false;
      res
        .writeHead(200, { 'content-type': 'text/plain' })
        .end(
          readFileSync(join(FIX, 'info/hubdep'), 'utf8').replace(
            /checksum:[0-9a-f]{64}/,
            `checksum:${'cd'.repeat(32)}`,
          ),
        );
      return true;
    },
  });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [rubygems, admin, audit],
    registries: [{ name: 'gems', type: 'rubygems', mode: 'proxy', upstream: upstream.url, metadata_ttl_secs: 0 }],
    config: {
      auth: { anonymous: ['source:read'] },
      upstream_audit: { ...AUDIT_TEST_CONFIG, on_content_change: 'block' },
    },
  });
  t.teardown(() => hub.close());
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${hub.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${hub.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, json: (await res.json()) as any };
  };
  const gem = async (file: string) =>
    fetch(`${hub.url}/proxy/gems/gems/${file}`).then(async (r) => (await r.arrayBuffer(), r.status));
  t.equal(await gem('hubdep-1.0.0.gem'), 200);
  t.equal(await gem('hubdemo-1.1.0.gem'), 200);
  await hub.hub.artifacts.idle();
  await api('POST', '/api/v1/admin/upstream/sweep', { registry: 'gems' });
  t.same(await events({ api }, 'package_content_changed'), [], 'checksums match the held .gem files');
  changed = true;
  await api('POST', '/api/v1/admin/upstream/sweep', { registry: 'gems' });
  const evs = await events({ api }, 'package_content_changed');
  t.equal(evs.length, 1);
  t.match(evs[0]?.data, {
    package_name: 'hubdep',
    version: '1.0.0',
    algorithm: 'sha256',
    upstream_digest: 'cd'.repeat(32),
    blocked_versions: ['1.0.0'],
  });
  t.equal(await gem('hubdep-1.0.0.gem'), 403, 'blocked');
});
