import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import {
  filesKind,
  hubOnDatabase,
  startFixtureUpstream,
  startTestHub,
  type StoreDatabase,
  storeTiers,
} from '@hub/testkit';
import { createDb, migrate, runtimeMigrations } from '../src/internal.js';
import { artifactRows } from '../src/storage/artifact-rows.js';
import { createBlocks } from '../src/services/blocks.js';
import { loadUrlSigner } from '../src/auth/signed-urls.js';

/** Every store test runs on SQLite and, where HUB_TEST_MYSQL_URL is set (CI), on MariaDB/MySQL. */
const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

// Its own temp folder for SQLite: t.testdir() would wipe fixtures a test already wrote there.
function tempDir(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-store-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

for (const store of tiers) {
  t.test(`${store.name}: migrations run once and are recorded`, async (t) => {
    const db = createDb(await store.database(t, tempDir(t)));
    t.teardown(() => db.destroy());
    const owners = [{ id: 'runtime', migrations: runtimeMigrations }];
    t.same(await migrate(db, owners), [
      'runtime/001_core',
      'runtime/002_settings',
      'runtime/003_access',
      'runtime/004_events',
      'runtime/005_metadata_blob_index',
      'runtime/006_replicas',
      'runtime/007_fetch_leases',
      'runtime/008_local_packages',
      'runtime/009_console_sessions',
      'runtime/010_kept_listings',
      'runtime/011_access_by_package',
      'runtime/012_version_links',
      'runtime/013_retention_holds',
      'runtime/014_access_via_group',
      'runtime/019_audit_chain',
      'runtime/020_audit_checkpoints',
    ]);
    t.same(await migrate(db, owners), [], 'a second run has nothing to do');
  });

  t.test(`${store.name}: artifact rows insert idempotently, are found, touched and removed`, async (t) => {
    const db = createDb(await store.database(t, tempDir(t)));
    t.teardown(() => db.destroy());
    await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }]);
    const rows = artifactRows(db);
    const longKey = `pkg/${'x'.repeat(3000)}.tgz`;
    const row = {
      registry: 'npm',
      cache_key: longKey,
      package_name: 'Pkg',
      version: '1.0.0',
      blob_sha256: 'a'.repeat(64),
      size: 5_000_000_000,
      content_type: 'application/octet-stream',
      upstream_url: 'http://127.0.0.1:1/x',
      origin: 'upstream' as const,
      fetched_at: 1_700_000_000_000,
    };
    await rows.insert(row);
    await rows.insert(row); // a second replica storing the same fetch
    t.same(await rows.find('npm', longKey), row, 'a long key and a >4 GiB size round-trip');
    t.equal(await rows.find('npm', longKey.toUpperCase()), null, 'keys are case-sensitive');
    await rows.touch('npm', [longKey], 1_800_000_000_000);
    t.equal(Number((await db('artifacts').first('last_access_at'))!.last_access_at), 1_800_000_000_000);
    await rows.remove('npm', longKey);
    t.equal(await rows.find('npm', longKey), null);
  });

  t.test(`${store.name}: blocks compare names byte for byte`, async (t) => {
    const db = createDb(await store.database(t, tempDir(t)));
    t.teardown(() => db.destroy());
    await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }]);
    const blocks = createBlocks(db);
    await blocks.add({ registry: 'npm', package_name: 'Evil', version: '1.0.0', reason: 'r', by: 'sec' });
    t.ok(await blocks.find('npm', { name: 'Evil', version: '1.0.0' }));
    t.equal(await blocks.find('npm', { name: 'evil', version: '1.0.0' }), null, 'evil is another package');
    t.equal(await blocks.find('npm', { name: 'Evil', version: '1.0.1' }), null);
  });

  t.test(`${store.name}: replicas on one database share the URL-signing key`, async (t) => {
    const cfg = await store.database(t, tempDir(t));
    const a = createDb(cfg);
    const b = createDb(cfg);
    t.teardown(() => Promise.all([a.destroy(), b.destroy()]));
    await migrate(a, [{ id: 'runtime', migrations: runtimeMigrations }]);
    const [sa, sb] = await Promise.all([loadUrlSigner(a), loadUrlSigner(b)]);
    const q = new URLSearchParams(sa.sign('/proxy/tf/x.zip', 60));
    t.ok(sb.verify('/proxy/tf/x.zip', q), 'signed on one replica, accepted on the other');
    t.notOk(sb.verify('/proxy/tf/y.zip', q), 'bound to its path');
  });

  t.test(
    `${store.name}: a hub caches through the store, and a second hub on the same store serves the hit`,
    async (t) => {
      const top = t.testdir({ up: { pkg: { '1.0.0': { 'a.bin': 'hello from upstream' } } } });
      const upstream = await startFixtureUpstream({ root: path.join(top, 'up') });
      t.teardown(() => upstream.close());
      const database = await store.database(t, tempDir(t));
      const shared = {
        registries: [{ name: 'files', type: 'files', upstream: upstream.url }],
        plugins: [filesKind],
        config: { auth: { anonymous: ['source:read'] } },
      };
      const withDatabase = (db: StoreDatabase) => {
        const on = hubOnDatabase(db);
        return { ...on, config: { ...shared.config, ...on.config } };
      };
      const dirA = path.join(top, 'a');
      const hubA = await startTestHub({ ...shared, dir: dirA, ...withDatabase(database) });
      t.teardown(() => hubA.close());
      const first = await fetch(`${hubA.url}/proxy/files/pkg/1.0.0/a.bin`);
      t.equal(await first.text(), 'hello from upstream');
      await hubA.hub.artifacts.idle();
      // Replica B shares the database and the blob directory (the multi-replica layout).
      const hubB = await startTestHub({
        ...shared,
        dir: path.join(top, 'b'),
        ...withDatabase(database),
        storagePath: path.join(dirA, 'blobs'),
      });
      t.teardown(() => hubB.close());
      const second = await fetch(`${hubB.url}/proxy/files/pkg/1.0.0/a.bin`);
      t.equal(second.headers.get('x-hub-cache'), 'hit');
      t.equal(await second.text(), 'hello from upstream');
      t.equal(upstream.count('/pkg/1.0.0/a.bin'), 1, 'one upstream fetch for both replicas');
    },
  );
}
