import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { storeTiers } from '@hub/testkit';
import { binaryCollation } from '@hub/runtime';
import { createDb, migrate, runtimeMigrations } from '@hub/runtime/internal';
import ipBlocks from '../src/index.js';
import { createIpBlockList } from '../src/ip-block-list.js';

/** The table as the runtime's own 003_access made it, before this plugin owned it. */
async function runtimeMadeTable(db: ReturnType<typeof createDb>) {
  await db.schema.createTable('ip_blocks', (t) => {
    binaryCollation(db, t);
    t.bigIncrements('id');
    t.string('cidr', 64).notNullable().unique();
    t.text('reason').nullable();
    t.string('created_by', 160).notNullable();
    t.bigInteger('created_at').notNullable();
  });
}

const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

for (const store of tiers) {
  t.test(
    `${store.name}: a database the runtime migrated with ip_blocks takes the plugin's migration and keeps its blocks`,
    async (t) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-ipblocks-'));
      t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
      const db = createDb(await store.database(t, dir));
      t.teardown(() => db.destroy());
      const runtime = { id: 'runtime', migrations: runtimeMigrations };
      t.ok((await migrate(db, [runtime])).includes('runtime/003_access'), 'the runtime keeps the name it recorded');
      await runtimeMadeTable(db);
      await db('ip_blocks').insert({ cidr: '198.51.100.0/24', reason: 'abuse', created_by: 'admin', created_at: 1 });
      t.same(await migrate(db, [runtime, ipBlocks]), ['ip-blocks/001_ip_blocks'], 'recorded, and nothing else runs');
      const list = createIpBlockList(db);
      t.match(
        await list.find('198.51.100.9'),
        { cidr: '198.51.100.0/24', reason: 'abuse', created_by: 'admin' },
        'the block made before the move holds',
      );
      t.equal(await list.add('198.51.100.0/24', null, 'admin'), 'exists', 'blocked once');
      t.ok(await list.remove('198.51.100.0/24'));
      t.same(await list.list(), []);
    },
  );

  t.test(`${store.name}: on a new database the plugin creates ip_blocks`, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-ipblocks-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const db = createDb(await store.database(t, dir));
    t.teardown(() => db.destroy());
    const runtime = { id: 'runtime', migrations: runtimeMigrations };
    await migrate(db, [runtime]);
    t.notOk(await db.schema.hasTable('ip_blocks'), 'the runtime no longer makes it');
    await migrate(db, [runtime, ipBlocks]);
    const list = createIpBlockList(db);
    t.match(await list.add('2001:db8::/32', 'test', 'admin'), {
      id: Number,
      cidr: '2001:db8::/32',
      reason: 'test',
      created_by: 'admin',
    });
    t.equal((await list.find('2001:db8::5'))?.cidr, '2001:db8::/32');
  });
}
