import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { storeTiers } from '@hub/testkit';
import { createDb, createLogger, migrate, runtimeMigrations } from '../src/internal.js';
import { createEventBus } from '../src/events/event-bus.js';

/** Store hooks (the webhooks outbox) commit with the event or not at all. */
const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

for (const store of tiers) {
  t.test(`${store.name}: a store hook writes in the event's transaction; its failure stores nothing`, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-events-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const db = createDb(await store.database(t, dir));
    t.teardown(() => db.destroy());
    await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }]);
    await db.schema.createTable('event_copies', (tb) => {
      tb.bigInteger('event_id').notNullable();
    });
    const bus = createEventBus({ db, log: createLogger({ level: 'silent' }) });
    const seen: number[] = [];
    bus.subscribe((e) => seen.push(e.id));
    let fail = false;
    const unhook = bus.onStore(async (trx, event) => {
      await trx('event_copies').insert({ event_id: event.id });
      if (fail) throw new Error('the outbox refused');
    });
    const kept = await bus.emit('package_published', { registry: 'npm', package: 'a' });
    t.same(
      (await db('event_copies').select()).map((r) => Number(r.event_id)),
      [kept.id],
      "the hook's row, with the event's id",
    );
    fail = true;
    await t.rejects(bus.emit('package_published', { registry: 'npm', package: 'b' }), /the outbox refused/);
    t.same(
      (await bus.list({ limit: 10 })).map((e) => e.data.package),
      ['a'],
      'the event whose hook failed is not stored',
    );
    t.equal((await db('event_copies').count({ n: '*' }).first())?.n, 1, "nor is the hook's own row");
    t.same(seen, [kept.id], 'listeners hear only of stored events');
    unhook();
    await bus.emit('upstream_unreachable', { registry: 'npm' });
    t.equal(Number((await db('event_copies').count({ n: '*' }).first())?.n), 1, 'a removed hook writes nothing');
  });
}
