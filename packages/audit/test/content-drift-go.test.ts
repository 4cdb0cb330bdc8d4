/**
 * Content drift for go: the GOPROXY protocol declares no digest, but a registry with `checksum_db` has
 * one that does. Its `/lookup/<module>@<version>` records the `h1` hashes of the module zip and go.mod;
 * hub computes the same hash over the files it holds and compares.
 */
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import admin from '@hub/admin';
import go from '@hub/kind-go';
import { goFixtureHandler, startFixtureUpstream, startTestHub } from '@hub/testkit';
import audit from '../src/index.js';
import { AUDIT_TEST_CONFIG } from './setup.js';

const FIX = fileURLToPath(new URL('../../../kind-go/test/fixtures/upstream/', import.meta.url));
const DEMO = 'example.com/Hub/demo';
/** What go 1.19's `go mod download -json` says of the fixture modules (GOPROXY=file://<fixtures>, GOSUMDB=off). */
const SUMS: Record<string, [zip: string, mod: string]> = {
  'example.com/!hub/demo@v1.0.0': [
    'm+frlV1QMMFWY2mClzxHrf4l83GESYsbIGOFQlwYvkY=',
    '9NieT1hYkX2pZBBVs6BlRwxvgeg2MK3Ywouz6MQNA+8=',
  ],
  'github.com/pkg/errors@v0.9.1': [
    '2j73VTfGx+QJg8F62rx2Fx2mLy8scXHlj5zSmfMuALE=',
    'bwawxfHBFNV+L2hUp1rHADufV3IMtnDRdf1r5NINEl0=',
  ],
};
const OTHER = Buffer.alloc(32, 7).toString('base64');
const hex = (b64: string) => Buffer.from(b64, 'base64').toString('hex');
const unescape = (p: string) => p.replace(/!([a-z])/g, (_m, c: string) => c.toUpperCase());

async function start(t: Test, policy: 'audit' | 'block' = 'audit', registry: Record<string, unknown> = {}) {
  const upstream = await startFixtureUpstream({ handler: goFixtureHandler(FIX) });
  t.teardown(() => upstream.close());
  /** Lookups answered otherwise: the zip hash recorded instead (or the go.mod's), or a status. */
  const lookups = new Map<string, string | { mod: string } | number>();
  const sumdb = await startFixtureUpstream({
    handler: (req, res) => {
      const at = (req.url ?? '').replace(/^\/lookup\//, '');
      const said = lookups.get(at);
      const sums = SUMS[at];
      if (typeof said === 'number' || !sums) {
        res.writeHead(typeof said === 'number' ? said : 404, { 'content-type': 'text/plain' }).end('not found');
        return true;
      }
      const [module, version] = unescape(at).split('@') as [string, string];
      // A lookup answer: the record number, the record, a blank line, the signed tree note.
      const zip = typeof said === 'string' ? said : sums[0];
      const mod = typeof said === 'object' ? said.mod : sums[1];
      const record = `${module} ${version} h1:${zip}\n${module} ${version}/go.mod h1:${mod}\n`;
      res
        .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`42\n${record}\ngo.sum database tree\n43\nAAAA=\n\n— sum.example AAAA\n`);
      return true;
    },
  });
  t.teardown(() => sumdb.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [go, admin, audit],
    registries: [
      {
        name: 'go',
        type: 'go',
        mode: 'proxy',
        upstream: upstream.url,
        checksum_db: sumdb.url,
        metadata_ttl_secs: 0,
        ...registry,
      },
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
  const get = (path: string) =>
    fetch(`${hub.url}/proxy/go/${path}`).then(async (r) => (await r.arrayBuffer(), r.status));
  for (const at of Object.keys(SUMS)) {
    const [module, version] = at.split('@');
    for (const ext of ['info', 'mod', 'zip'])
      t.equal(await get(`${module}/@v/${version}.${ext}`), 200, `${at}.${ext} is held`);
  }
  await hub.hub.artifacts.idle();
  return {
    hub,
    sumdb,
    lookups,
    get,
    sweep: () => api('POST', '/api/v1/admin/upstream/sweep', { registry: 'go' }),
    events: async () =>
      (await api('GET', '/api/v1/admin/events?type=package_content_changed')).json.events.map(
        (e: any) => e.data,
      ) as any[],
    health: async () => (await api('GET', '/api/v1/admin/health')).json.registries[0].audit.content_changed as number,
    rows: () =>
      hub.hub.db('upstream_content_changes').select('package_name', 'version', 'file', 'algorithm', 'upstream_digest'),
  };
}

t.test(
  'go: the h1 the checksum database records for a held .zip and .mod is compared with the held files',
  async (t) => {
    const s = await start(t);
    await s.sweep();
    t.same(await s.events(), [], "hub's h1 of the held .zip and .mod files is go's");
    t.equal(s.sumdb.count('/lookup/'), 2, 'one lookup per held version');

    s.lookups.set('example.com/!hub/demo@v1.0.0', OTHER);
    await s.sweep();
    const [ev, ...more] = await s.events();
    t.same(more, [], 'only the zip whose record differs');
    t.match(ev, {
      registry: 'go',
      package_name: DEMO,
      version: 'v1.0.0',
      coordinate: `${DEMO}@v1.0.0`,
      file: `${DEMO}/@v/v1.0.0.zip`,
      algorithm: 'h1',
      held_digest: hex(SUMS['example.com/!hub/demo@v1.0.0']![0]),
      upstream_digest: hex(OTHER),
      policy: 'audit',
    });
    t.match(await s.rows(), [
      { package_name: DEMO, version: 'v1.0.0', file: `${DEMO}/@v/v1.0.0.zip`, algorithm: 'h1' },
    ]);
    t.equal(await s.health(), 1);
    t.match(
      await (await fetch(`${s.hub.url}/metrics`)).text(),
      /hub_upstream_content_changed_total\{registry="go"\} 1/,
    );
    t.equal(await s.get('example.com/!hub/demo/@v/v1.0.0.zip'), 200, 'under audit the held zip is still served');

    s.lookups.set('github.com/pkg/errors@v0.9.1', { mod: OTHER });
    await s.sweep();
    t.match(
      (await s.events())[0],
      {
        package_name: 'github.com/pkg/errors',
        file: 'github.com/pkg/errors/@v/v0.9.1.mod',
        algorithm: 'h1',
        held_digest: hex(SUMS['github.com/pkg/errors@v0.9.1']![1]),
        upstream_digest: hex(OTHER),
      },
      'a go.mod is compared too',
    );
    t.equal(await s.health(), 2);

    s.lookups.clear();
    await s.sweep();
    t.same(await s.rows(), [], 'the database records the held hashes again: cleared');
  },
);

t.test('go: a lookup that answers 500 (or 404, a module the database does not know) is never a change', async (t) => {
  const s = await start(t);
  s.lookups.set('example.com/!hub/demo@v1.0.0', 500);
  s.lookups.set('github.com/pkg/errors@v0.9.1', 404);
  await s.sweep();
  t.same(await s.events(), []);
  s.lookups.set('example.com/!hub/demo@v1.0.0', OTHER);
  await s.sweep();
  t.match(
    await s.events(),
    [{ package_name: DEMO, upstream_digest: hex(OTHER) }],
    'once it answers, the changed record is reported',
  );
});

t.test('go with on_content_change = "block": the version is blocked', async (t) => {
  const s = await start(t, 'block');
  s.lookups.set('example.com/!hub/demo@v1.0.0', OTHER);
  await s.sweep();
  t.match(await s.events(), [
    { package_name: DEMO, version: 'v1.0.0', blocked_versions: ['v1.0.0'], blocked_by: 'system:upstream-audit' },
  ]);
  t.equal(await s.get('example.com/!hub/demo/@v/v1.0.0.zip'), 403);
  t.equal(await s.get('github.com/pkg/errors/@v/v0.9.1.zip'), 200);
});

t.test('go: modules matching checksum_db_exclude are never looked up (private paths stay private)', async (t) => {
  const s = await start(t, 'audit', { checksum_db_exclude: ['example.com/*/demo'] });
  s.lookups.set('example.com/!hub/demo@v1.0.0', OTHER);
  await s.sweep();
  t.equal(s.sumdb.count('/lookup/example.com'), 0, 'the excluded module was not asked for');
  t.equal(s.sumdb.count('/lookup/github.com/pkg/errors@v0.9.1'), 1, 'the others were');
  t.same(await s.events(), []);
});
