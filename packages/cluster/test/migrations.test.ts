import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { storeTiers } from '@hub/testkit';
import { createDb, migrate, runtimeMigrations } from '@hub/runtime/internal';
import cluster from '../src/index.js';

/** The tables as the runtime's own 006_replicas and 007_fetch_leases made them, before the plugin existed. */
async function runtimeMadeTables(db: ReturnType<typeof createDb>) {
  await db.schema.createTable('replicas', (t) => {
    t.string('id', 64).primary();
    t.string('host', 255).notNullable();
    t.integer('pid').notNullable();
    t.string('rate_store', 16).notNullable();
    t.bigInteger('started_at').notNullable();
    t.bigInteger('seen_at').notNullable().index();
    t.string('internal_url', 512).nullable();
  });
  await db.schema.createTable('fetch_leases', (t) => {
    t.string('id', 64).primary();
    t.string('owner', 64).notNullable();
    t.bigInteger('expires_at').notNullable();
  });
}

const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

for (const store of tiers) {
  t.test(
    `${store.name}: a database the runtime migrated with its replica tables takes the plugin's migrations without error`,
    async (t) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-cluster-'));
      t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
      const db = createDb(await store.database(t, dir));
      t.teardown(() => db.destroy());
      const runtime = { id: 'runtime', migrations: runtimeMigrations };
      t.ok(
        (await migrate(db, [runtime])).includes('runtime/007_fetch_leases'),
        'the runtime keeps the names it recorded',
      );
      await runtimeMadeTables(db);
      await db('replicas').insert({
        id: 'r1',
        host: 'h',
        pid: 1,
        rate_store: 'memory',
        started_at: 1,
        seen_at: 1,
        internal_url: 'http://h:1',
      });
      t.same(await migrate(db, [runtime, cluster]), ['cluster/001_replicas', 'cluster/002_fetch_leases']);
      t.same(
        await db('replicas').select('id', 'internal_url'),
        [{ id: 'r1', internal_url: 'http://h:1' }],
        'the rows are kept',
      );
    },
  );

  t.test(`${store.name}: on a new database the plugin creates its tables`, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-cluster-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const db = createDb(await store.database(t, dir));
    t.teardown(() => db.destroy());
    await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }, cluster]);
    t.ok(await db.schema.hasTable('fetch_leases'));
    t.ok(await db.schema.hasColumn('replicas', 'internal_url'));
  });
}
