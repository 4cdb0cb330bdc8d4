import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Knex } from 'knex';
import { HubError } from '@hub/runtime';
import { createDb, migrate, runtimeMigrations } from '@hub/runtime/internal';
import waivers, { createWaiverStore, waiverState } from '../src/index.js';

/** A migrated SQLite database in a temp folder, removed after the test. */
async function migratedDb(t: { teardown(fn: () => unknown): void }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-waivers-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const db = createDb({ client: 'sqlite', filename: path.join(dir, 'hub.db') } as never);
  t.teardown(() => db.destroy());
  await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }, waivers]);
  return db;
}

const bob = { user: 'bob', tokenId: 'tok-b' };
const base = {
  target: 'block:1',
  registry: 'npm',
  package_name: 'left-pad',
  version: null,
  scope_type: 'user' as const,
  scope_id: 'bob',
  reason: 'r',
  requested_by: 'alice',
  requested_token: 'tok-a',
};

t.test('what a waiver covers, and when it ends (an injected clock)', async (t) => {
  const db = await migratedDb(t);
  let now = 1_000_000;
  const store = createWaiverStore(db, () => now);
  const w = await store.request({ ...base, version: '1.3.0', expires_at: now + 60_000 });
  t.equal(waiverState(w, now), 'pending');
  t.notOk(await store.lifts('block:1', 'npm', { name: 'left-pad', version: '1.3.0' }, bob), 'pending lifts nothing');
  await store.decide(w.id, 'active', 'carol', 'tok-c');
  t.ok(await store.lifts('block:1', 'npm', { name: 'left-pad', version: '1.3.0' }, bob), 'its version, for bob');
  t.ok(await store.lifts('block:1', 'npm', { name: 'left-pad' }, bob), "the package's listing, for bob");
  t.notOk(await store.lifts('block:1', 'npm', { name: 'left-pad', version: '1.4.0' }, bob), 'not another version');
  t.notOk(await store.lifts('block:2', 'npm', { name: 'left-pad', version: '1.3.0' }, bob), 'not another block');
  t.notOk(await store.lifts('block:1', 'other', { name: 'left-pad', version: '1.3.0' }, bob), 'not another registry');
  t.notOk(
    await store.lifts('block:1', 'npm', { name: 'left-pad', version: '1.3.0' }, { user: 'dave', tokenId: 'tok-d' }),
    'not another user',
  );
  t.notOk(
    await store.lifts('block:1', 'npm', { name: 'left-pad', version: '1.3.0' }, { user: null, tokenId: null }),
    'not the anonymous',
  );
  now += 60_000;
  t.equal(waiverState((await store.get(w.id))!, now), 'expired');
  t.notOk(
    await store.lifts('block:1', 'npm', { name: 'left-pad', version: '1.3.0' }, bob),
    'expired at expires_at, memo or not',
  );
  t.equal(
    await store.revoke(w.id, 'carol').then((r) => r?.state),
    'revoked',
    'an expired row may still be revoked by the store; the route refuses it',
  );

  const tok = await store.request({ ...base, scope_type: 'token', scope_id: 'tok-b', expires_at: now + 60_000 });
  await store.decide(tok.id, 'active', 'carol', null);
  t.ok(await store.lifts('block:1', 'npm', { name: 'left-pad', version: '9.9.9' }, bob), 'a token scope: that token');
  t.notOk(
    await store.lifts('block:1', 'npm', { name: 'left-pad', version: '9.9.9' }, { user: 'bob', tokenId: 'tok-b2' }),
    "not the user's other token",
  );
  const reg = await store.request({
    ...base,
    target: 'flag:s:X-1',
    scope_type: 'registry',
    scope_id: null,
    expires_at: now + 60_000,
  });
  await store.decide(reg.id, 'active', 'carol', null);
  t.ok(
    await store.lifts('flag:s:X-1', 'npm', { name: 'left-pad', version: '1.0.0' }, { user: 'dave', tokenId: 'tok-d' }),
    'a registry scope: anyone authenticated',
  );
  t.equal(await store.decide(reg.id, 'rejected', 'carol', null), null, 'decided once');
});

t.test(
  'a database outage lifts nothing: the refusal stands, though the policy memo would answer from its last read',
  async (t) => {
    const db = await migratedDb(t);
    let now = 1_000_000;
    let down = false;
    // The outage as the runtime reports it: a 503 service_unavailable naming the database (storage/db.ts).
    const outage = new HubError('service_unavailable', 'the database is unavailable; try again shortly', {
      detail: { dependency: 'database' },
    });
    const flaky = ((table: string) => {
      if (!down) return db(table);
      const b = { where: () => b, select: () => Promise.reject(outage) };
      return b;
    }) as unknown as Knex;
    const store = createWaiverStore(flaky, () => now);
    const w = await store.request({ ...base, expires_at: now + 600_000 });
    await store.decide(w.id, 'active', 'carol', null);
    t.ok(await store.lifts('block:1', 'npm', { name: 'left-pad' }, bob), 'read while the database answers');
    down = true;
    now += 2_000;
    t.notOk(
      await store.lifts('block:1', 'npm', { name: 'left-pad' }, bob),
      'down: no waiver, even one read two seconds ago',
    );
    down = false;
    now += 2_000;
    t.ok(await store.lifts('block:1', 'npm', { name: 'left-pad' }, bob), 'back: the waiver holds again');
  },
);
