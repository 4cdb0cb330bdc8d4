import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { storeTiers } from '@hub/testkit';
import { binaryCollation } from '@hub/runtime';
import { createDb, migrate, runtimeMigrations } from '@hub/runtime/internal';
import audit from '../src/index.js';
import { createKeptListings } from '../src/kept-listings.js';

/** The table as the runtime's own 010_kept_listings made it, before the audit owned it. */
async function runtimeMadeTable(db: ReturnType<typeof createDb>) {
  await db.schema.createTable('kept_listings', (t) => {
    binaryCollation(db, t);
    t.bigIncrements('id');
    t.string('registry', 64).notNullable();
    t.string('name_sha256', 64).notNullable();
    t.string('package_name', 512).notNullable();
    t.string('kept_by', 128).notNullable();
    t.bigInteger('since').notNullable();
    t.unique(['registry', 'name_sha256']);
  });
}

const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

for (const store of tiers) {
  t.test(
    `${store.name}: a database the runtime migrated with kept_listings takes the audit's migrations and keeps its rows`,
    async (t) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-audit-'));
      t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
      const db = createDb(await store.database(t, dir));
      t.teardown(() => db.destroy());
      const runtime = { id: 'runtime', migrations: runtimeMigrations };
      t.ok(
        (await migrate(db, [runtime])).includes('runtime/010_kept_listings'),
        'the runtime keeps the name it recorded',
      );
      await runtimeMadeTable(db);
      const kept = createKeptListings(db);
      t.ok(await kept.keep('gems', 'hubdep', 'system:upstream-audit'), 'a row kept before the move');
      t.ok((await migrate(db, [runtime, audit])).includes('audit/004_kept_listings'));
      t.ok(await kept.isKept('gems', 'hubdep'), 'the row is still there');
      t.same(await kept.packages('gems'), ['hubdep']);
      t.notOk(await kept.keep('gems', 'hubdep', 'system:upstream-audit'), 'kept once');
      t.ok(await kept.release('gems', 'hubdep'));
      t.same(await kept.list(), []);
    },
  );

  t.test(`${store.name}: on a new database the audit creates kept_listings`, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-audit-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const db = createDb(await store.database(t, dir));
    t.teardown(() => db.destroy());
    await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }, audit]);
    const kept = createKeptListings(db);
    t.ok(await kept.keep('npm', '@scope/pkg', 'system:upstream-audit'));
    t.match(await kept.list('npm'), [
      { registry: 'npm', package_name: '@scope/pkg', kept_by: 'system:upstream-audit', since: Number },
    ]);
  });
}
