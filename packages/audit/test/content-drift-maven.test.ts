/**
 * Content drift for maven: a version holds several files (POM, jar, their .sha1), so each declared digest
 * names its file. The upstream's strongest checksum file beside each held file (.sha512, .sha256, then
 * .sha1) is compared with the held bytes; a failing checksum request is never a change.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import admin from '@hub/admin';
import maven from '@hub/kind-maven';
import { hubOnDatabase, startFixtureUpstream, startTestHub, storeTiers, type StoreDatabase } from '@hub/testkit';
import audit from '../src/index.js';
import { AUDIT_TEST_CONFIG } from './setup.js';

const FIX = fileURLToPath(new URL('../../../kind-maven/test/fixtures/upstream/', import.meta.url));
const DIR = 'org/hamcrest/hamcrest-core/1.3';
const JAR = `${DIR}/hamcrest-core-1.3.jar`;
const POM = `${DIR}/hamcrest-core-1.3.pom`;
const digest = (algorithm: string, file: string) =>
  createHash(algorithm)
    .update(readFileSync(join(FIX, file)))
    .digest('hex');

/** What the upstream declares beside a file, by path: a checksum file's text, or a status. Unset: the fixture. */
type Declared = Map<string, string | number>;

async function start(t: Test, o: { policy?: 'audit' | 'block'; db?: StoreDatabase } = {}) {
  const declared: Declared = new Map();
  const upstream = await startFixtureUpstream({
    root: FIX,
    handler: async (req, res) => {
      const said = declared.get((req.url ?? '').slice(1));
      if (said === undefined) return false;
      if (typeof said === 'number') res.writeHead(said, { 'content-type': 'text/plain' }).end('upstream failure');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end(said);
      return true;
    },
  });
  t.teardown(() => upstream.close());
  const where = o.db ? hubOnDatabase(o.db) : {};
  const hub = await startTestHub({
    dir: t.testdir(),
    mysqlUrl: where.mysqlUrl,
    plugins: [maven, admin, audit],
    registries: [{ name: 'maven', type: 'maven', mode: 'proxy', upstream: upstream.url, metadata_ttl_secs: 0 }],
    config: {
      auth: { anonymous: ['source:read'] },
      ...where.config,
      upstream_audit: { ...AUDIT_TEST_CONFIG, on_content_change: o.policy ?? 'audit' },
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
    fetch(`${hub.url}/proxy/maven/maven2/${path}`).then(async (r) => (await r.arrayBuffer(), r.status));
  for (const path of [POM, JAR, 'junit/junit/4.13.2/junit-4.13.2.pom'])
    t.equal(await get(path), 200, `${path} is held`);
  await hub.hub.artifacts.idle();
  const sweep = () => api('POST', '/api/v1/admin/upstream/sweep', { registry: 'maven' });
  const events = async () =>
    (await api('GET', '/api/v1/admin/events?type=package_content_changed')).json.events.map(
      (e: any) => e.data,
    ) as any[];
  const health = async () =>
    (await api('GET', '/api/v1/admin/health')).json.registries[0].audit.content_changed as number;
  const rows = () =>
    hub.hub
      .db('upstream_content_changes')
      .orderBy('file')
      .select('package_name', 'version', 'file', 'algorithm', 'upstream_digest');
  return { hub, upstream, declared, get, sweep, events, health, rows };
}

const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

for (const tier of tiers)
  t.test(
    `${tier.name}: a changed .sha1 beside a held jar is a change of that file; the strongest checksum the upstream has is used`,
    async (t) => {
      const s = await start(t, { db: await tier.database(t, t.testdir()) });
      await s.sweep();
      t.same(await s.events(), [], 'the .sha1 files match the held POM and jar');
      t.ok(
        s.upstream.count(`/${JAR}.sha512`) >= 1 && s.upstream.count(`/${JAR}.sha256`) >= 1,
        'the stronger checksums were asked for first (404 here)',
      );
      t.equal(
        s.upstream.count(`/${DIR}/hamcrest-core-1.3.jar.sha1.sha512`),
        0,
        'a held checksum file is not a file to check',
      );

      s.declared.set(`${JAR}.sha1`, `${'ab'.repeat(20)}  hamcrest-core-1.3.jar\n`);
      // The POM's .sha1 still matches, but a .sha512 the upstream now has does not: the strongest decides.
      s.declared.set(`${POM}.sha512`, 'cd'.repeat(64));
      await s.sweep();
      const evs = await s.events();
      t.equal(evs.length, 2, 'one event per changed file');
      t.match(
        evs.find((e) => e.file === JAR),
        {
          registry: 'maven',
          package_name: 'org.hamcrest:hamcrest-core',
          version: '1.3',
          coordinate: 'org.hamcrest:hamcrest-core:1.3',
          file: JAR,
          algorithm: 'sha1',
          held_digest: digest('sha1', JAR),
          upstream_digest: 'ab'.repeat(20),
          policy: 'audit',
        },
      );
      t.match(
        evs.find((e) => e.file === POM),
        { file: POM, algorithm: 'sha512', held_digest: digest('sha512', POM), upstream_digest: 'cd'.repeat(64) },
      );
      t.match(await s.rows(), [
        {
          package_name: 'org.hamcrest:hamcrest-core',
          version: '1.3',
          file: JAR,
          algorithm: 'sha1',
          upstream_digest: 'ab'.repeat(20),
        },
        { file: POM, algorithm: 'sha512' },
      ]);
      t.equal(await s.health(), 2, 'health counts the changed files');
      t.match(
        await (await fetch(`${s.hub.url}/metrics`)).text(),
        /hub_upstream_content_changed_total\{registry="maven"\} 2/,
      );
      t.equal(await s.get(JAR), 200, 'under audit the held jar is still served');

      await s.sweep();
      t.equal((await s.events()).length, 2, 'the same change is not reported twice');
      s.declared.delete(`${JAR}.sha1`);
      s.declared.set(`${POM}.sha512`, digest('sha512', POM));
      await s.sweep();
      t.same(await s.rows(), [], 'the upstream declares the held digests again: cleared');
      t.equal(await s.health(), 0);
    },
  );

t.test(
  'a checksum request that fails (500, an HTML page) is never a change; a 404 falls back to the weaker checksum',
  async (t) => {
    const s = await start(t);
    s.declared.set(`${JAR}.sha1`, 'ab'.repeat(20));
    s.declared.set(`${JAR}.sha512`, 500);
    await s.sweep();
    t.same(await s.events(), [], 'the .sha512 answered 500: nothing declared, so nothing changed');
    t.equal(
      s.upstream.count(`/${JAR}.sha1`),
      1,
      'and no weaker checksum was asked for instead (only the download verification read it)',
    );
    s.declared.delete(`${JAR}.sha512`);
    s.upstream.fault(`/${JAR}.sha512`, { type: 'html200' });
    await s.sweep();
    t.same(await s.events(), [], 'an HTML page is no checksum');
    s.upstream.clearFaults();
    await s.sweep();
    t.match(
      await s.events(),
      [{ file: JAR, algorithm: 'sha1', upstream_digest: 'ab'.repeat(20) }],
      'the .sha512 404s again: the .sha1 is read and differs',
    );
  },
);

t.test('with on_content_change = "block", a changed file blocks its version', async (t) => {
  const s = await start(t, { policy: 'block' });
  s.declared.set(`${JAR}.sha1`, 'ab'.repeat(20));
  await s.sweep();
  t.match(await s.events(), [
    { file: JAR, version: '1.3', policy: 'block', blocked_versions: ['1.3'], blocked_by: 'system:upstream-audit' },
  ]);
  t.equal(await s.get(JAR), 403, 'the changed jar is refused');
  t.equal(await s.get(POM), 403, 'so is every file of that version');
  t.equal(await s.get('junit/junit/4.13.2/junit-4.13.2.pom'), 200, 'another package is not');
  t.match(await s.hub.hub.services.blocks.list(), [
    {
      registry: 'maven',
      package_name: 'org.hamcrest:hamcrest-core',
      version: '1.3',
      blocked_by: 'system:upstream-audit',
    },
  ]);
  s.declared.delete(`${JAR}.sha1`);
  await s.sweep();
  t.same(await s.rows(), [], 'matching again clears the record');
  t.equal(await s.get(JAR), 403, 'the block stays until an administrator lifts it');
});
