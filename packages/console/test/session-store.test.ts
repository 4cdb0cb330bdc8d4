import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { storeTiers } from '@hub/testkit';
import { createDb, migrate, runtimeMigrations } from '@hub/runtime/internal';
import { consoleMigrations } from '../src/migrations.js';
import { createSessions } from '../src/sessions.js';

const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

for (const store of tiers) {
  t.test(
    `${store.name}: console sessions: only hashes stored, expired ones unseen and swept, sign-out removes`,
    async (t) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-sessions-'));
      t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
      const db = createDb(await store.database(t, dir));
      t.teardown(() => db.destroy());
      await migrate(db, [
        { id: 'runtime', migrations: runtimeMigrations },
        { id: 'console', migrations: consoleMigrations },
      ]);
      const sessions = createSessions(db);
      const a = await sessions.create({ token: 'hub_token_a', user_id: 'alice' });
      t.match(a.session, { user_id: 'alice', csrf: /^[A-Za-z0-9_-]{32}$/ });
      const stored = await db('sessions').select();
      t.equal(stored.length, 1);
      t.notOk(JSON.stringify(stored).includes(a.id), 'the cookie value is not stored');
      t.notOk(JSON.stringify(stored).includes('hub_token_a'), 'nor the token');
      t.match(await sessions.find(a.id), { user_id: 'alice', csrf: a.session.csrf });
      t.equal(await sessions.find(`${a.id}x`), null, 'another id finds nothing');
      t.equal(await sessions.find('x'.repeat(200)), null, 'an overlong id is not looked up');
      const old = await sessions.create({ token: 'hub_token_b', user_id: 'bob', ttl_ms: -1 });
      t.equal(await sessions.find(old.id), null, 'an expired session is not a session');
      await sessions.create({ token: 'hub_token_c', user_id: 'carol' });
      t.equal(
        (await db('sessions').where({ user_id: 'bob' }).select()).length,
        0,
        'expired sessions are swept when new ones come',
      );
      t.equal(await sessions.remove(a.id), true);
      t.equal(await sessions.find(a.id), null, 'signed out');
      t.equal(await sessions.remove(a.id), false);
    },
  );

  t.test(
    `${store.name}: a database the runtime migrated before the console owned the sessions table keeps it`,
    async (t) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-sessions-'));
      t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
      const db = createDb(await store.database(t, dir));
      t.teardown(() => db.destroy());
      await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }]);
      // What runtime/009_console_sessions created before the split.
      await db.schema.createTable('sessions', (tb) => {
        tb.string('id_sha256', 64).primary();
        tb.string('token_sha256', 64).notNullable();
        tb.string('user_id', 128).nullable();
        tb.string('csrf', 64).notNullable();
        tb.bigInteger('created_at').notNullable();
        tb.bigInteger('expires_at').notNullable().index();
      });
      const before = await createSessions(db).create({ token: 'hub_token_a', user_id: 'alice' });
      t.same(
        await migrate(db, [
          { id: 'runtime', migrations: runtimeMigrations },
          { id: 'console', migrations: consoleMigrations },
        ]),
        ['console/001_sessions'],
      );
      t.match(
        await createSessions(db).find(before.id),
        { user_id: 'alice' },
        'the session signed in before the upgrade still holds',
      );
    },
  );
}
