/**
 * Content drift for nuget: the `packageHash` (SHA512, base64) a NuGet v3 upstream declares for a held
 * .nupkg, from the registration's catalog entry when it inlines one, else from the catalog leaf that entry
 * names (as the gallery serves it). The fixture feed is kind-nuget's, registration hive gzipped.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import admin from '@hub/admin';
import nuget from '@hub/kind-nuget';
import { fillTemplate, pathOf, resolveUnderRoot, sendBody, startFixtureUpstream, startTestHub } from '@hub/testkit';
import audit from '../src/index.js';
import { AUDIT_TEST_CONFIG } from './setup.js';

const FIX = fileURLToPath(new URL('../../../kind-nuget/test/fixtures/upstream/', import.meta.url));
const HUBDEP_LEAF = '/v3/catalog0/data/2024.01.01.00.00.00/hubdep.1.0.0.json';
const HUBDEMO_INDEX = '/v3/registration-gz-semver2/hubdemo/index.json';
const OTHER = createHash('sha512').update('other bytes').digest();
const held = (file: string) =>
  createHash('sha512')
    .update(readFileSync(`${FIX}v3-flatcontainer/${file}`))
    .digest('hex');

/** Rewrites the `packageHash` of `version` in a registration document or catalog leaf. */
const otherHash = (version: string) => (doc: any) => {
  const entries = doc.items ? doc.items.flatMap((p: any) => p.items ?? []).map((l: any) => l.catalogEntry) : [doc];
  for (const e of entries) if (e.version === version) e.packageHash = OTHER.toString('base64');
  return doc;
};

async function start(t: Test, policy: 'audit' | 'block' = 'audit') {
  /** Documents the upstream serves changed, by path. */
  const changed = new Map<string, (doc: any) => any>();
  const upstream = await startFixtureUpstream({
    root: FIX,
    handler: async (req, res, up) => {
      const path = pathOf(req.url);
      const gz = path.startsWith('/v3/registration-gz-semver2/');
      if (!gz && !changed.has(path)) return false;
      const hit = await resolveUnderRoot(FIX, path);
      if (!hit) return false;
      let body = fillTemplate(readFileSync(hit.file), up.url);
      const change = changed.get(path);
      if (change) body = Buffer.from(JSON.stringify(change(JSON.parse(body.toString('utf8')))));
      // The gallery's gz hives are stored gzipped and sent so whatever the client asked for.
      sendBody(
        req,
        res,
        200,
        { 'content-type': 'application/json', ...(gz ? { 'content-encoding': 'gzip' } : {}) },
        gz ? gzipSync(body) : body,
        { conditional: false },
      );
      return true;
    },
  });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [nuget, admin, audit],
    registries: [
      { name: 'nuget', type: 'nuget', mode: 'proxy', upstream: `${upstream.url}/v3/index.json`, metadata_ttl_secs: 0 },
    ],
    config: {
      auth: { anonymous: ['source:read'] },
      upstream_audit: { ...AUDIT_TEST_CONFIG, on_content_change: policy },
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
  const get = (file: string) =>
    fetch(`${hub.url}/proxy/nuget/nuget/v3/flatcontainer/${file}`).then(async (r) => (await r.arrayBuffer(), r.status));
  // hubdep 1.0.0 holds two files (.nupkg and .nuspec): the digest names the .nupkg.
  for (const file of [
    'hubdep/1.0.0/hubdep.1.0.0.nupkg',
    'hubdep/1.0.0/hubdep.nuspec',
    'hubdemo/1.1.0/hubdemo.1.1.0.nupkg',
  ])
    t.equal(await get(file), 200, `${file} is held`);
  await hub.hub.artifacts.idle();
  return {
    hub,
    upstream,
    changed,
    get,
    sweep: () => api('POST', '/api/v1/admin/upstream/sweep', { registry: 'nuget' }),
    events: async () =>
      (await api('GET', '/api/v1/admin/events?type=package_content_changed')).json.events.map(
        (e: any) => e.data,
      ) as any[],
    health: async () => (await api('GET', '/api/v1/admin/health')).json.registries[0].audit.content_changed as number,
    rows: () =>
      hub.hub
        .db('upstream_content_changes')
        .orderBy('package_name')
        .select('package_name', 'version', 'file', 'algorithm', 'upstream_digest'),
  };
}

t.test(
  'nuget: a changed packageHash, in the catalog leaf or inlined in the registration, is a change of the .nupkg',
  async (t) => {
    const s = await start(t);
    await s.sweep();
    t.same(await s.events(), [], 'the declared hashes match the held .nupkg files');
    t.ok(s.upstream.count(HUBDEP_LEAF) >= 1, 'hubdep: the registration inlines no hash, so its catalog leaf was read');

    s.changed.set(HUBDEP_LEAF, otherHash('1.0.0'));
    s.changed.set(HUBDEMO_INDEX, otherHash('1.1.0'));
    await s.sweep();
    const evs = await s.events();
    t.equal(evs.length, 2);
    t.match(
      evs.find((e) => e.package_name === 'hubdep'),
      {
        registry: 'nuget',
        version: '1.0.0',
        coordinate: 'hubdep@1.0.0',
        file: 'hubdep/1.0.0/hubdep.1.0.0.nupkg',
        algorithm: 'sha512',
        held_digest: held('hubdep/1.0.0/hubdep.1.0.0.nupkg'),
        upstream_digest: OTHER.toString('hex'),
        policy: 'audit',
      },
    );
    t.match(
      evs.find((e) => e.package_name === 'hubdemo'),
      {
        version: '1.1.0',
        file: 'hubdemo/1.1.0/hubdemo.1.1.0.nupkg',
        held_digest: held('hubdemo/1.1.0/hubdemo.1.1.0.nupkg'),
      },
    );
    t.match(await s.rows(), [
      { package_name: 'hubdemo', version: '1.1.0' },
      {
        package_name: 'hubdep',
        version: '1.0.0',
        file: 'hubdep/1.0.0/hubdep.1.0.0.nupkg',
        algorithm: 'sha512',
        upstream_digest: OTHER.toString('hex'),
      },
    ]);
    t.equal(await s.health(), 2);
    t.match(
      await (await fetch(`${s.hub.url}/metrics`)).text(),
      /hub_upstream_content_changed_total\{registry="nuget"\} 2/,
    );
    t.equal(await s.get('hubdep/1.0.0/hubdep.1.0.0.nupkg'), 200, 'under audit the held .nupkg is still served');

    await s.sweep();
    t.equal((await s.events()).length, 2, 'the same change is not reported twice');
    s.changed.clear();
    await s.sweep();
    t.same(await s.rows(), [], 'the upstream declares the held hashes again: cleared');
    t.equal(await s.health(), 0);
  },
);

t.test('nuget: a catalog leaf that answers 500 declares nothing, so nothing is reported', async (t) => {
  const s = await start(t);
  s.changed.set(HUBDEP_LEAF, otherHash('1.0.0'));
  s.upstream.fault(HUBDEP_LEAF, { type: 'status', status: 500 });
  await s.sweep();
  t.same(await s.events(), [], 'an upstream failure is never a change');
  s.upstream.clearFaults();
  await s.sweep();
  t.match(
    await s.events(),
    [{ package_name: 'hubdep', upstream_digest: OTHER.toString('hex') }],
    'once the leaf answers, its changed hash is reported',
  );
});

t.test('nuget with on_content_change = "block": the changed version is blocked', async (t) => {
  const s = await start(t, 'block');
  s.changed.set(HUBDEP_LEAF, otherHash('1.0.0'));
  await s.sweep();
  t.match(await s.events(), [
    {
      package_name: 'hubdep',
      version: '1.0.0',
      policy: 'block',
      blocked_versions: ['1.0.0'],
      blocked_by: 'system:upstream-audit',
    },
  ]);
  t.equal(await s.get('hubdep/1.0.0/hubdep.1.0.0.nupkg'), 403, 'the changed version is refused');
  t.equal(await s.get('hubdemo/1.1.0/hubdemo.1.1.0.nupkg'), 200, 'another package is not');
  s.changed.clear();
  await s.sweep();
  t.same(await s.rows(), [], 'matching again clears the record');
});
