/** Issue 29: webhook deliveries survive restarts, are dead-lettered after the last attempt, and go out once across replicas. */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import npm from '@hub/kind-npm';
import {
  createTestDatabase,
  startTestHub,
  storeTiers,
  hubOnDatabase,
  TEST_MYSQL_URL,
  type StoreDatabase,
  type TestHub,
} from '@hub/testkit';
import webhooks from '../src/index.js';
import { hookKey } from '../src/outbox.js';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A loopback receiver that answers 503 while `up` is false, and records what it accepted. */
async function receiver(t: Test) {
  const got: Received[] = [];
  let refused = 0;
  const state = { up: false };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!state.up) {
        refused++;
        res.writeHead(503).end();
        return;
      }
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    got,
    state,
    refused: () => refused,
  };
}

/** A hub with only the npm kind and the webhooks plugin, on `db`; its own events are emitted through hub.events. */
async function hubOn(
  t: Test,
  dir: string,
  db: StoreDatabase,
  notifications: Record<string, unknown>,
  storagePath?: string,
): Promise<TestHub> {
  const on = hubOnDatabase(db);
  const hub = await startTestHub({
    dir,
    mysqlUrl: on.mysqlUrl,
    storagePath,
    plugins: [npm, webhooks],
    registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: 'http://127.0.0.1:9/' }],
    config: { ...on.config, notifications },
  });
  t.teardown(() => hub.close());
  return hub;
}

async function deliveries(hub: TestHub, state?: string): Promise<any[]> {
  const res = await fetch(`${hub.url}/api/v1/admin/webhooks/deliveries${state ? `?state=${state}` : ''}`, {
    headers: { authorization: `Bearer ${hub.adminToken}` },
  });
  if (res.status !== 200) throw new Error(`deliveries answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { deliveries: any[] }).deliveries;
}

/** Polls until `what` holds; a condition never met fails the test at the end of its (bounded) wait. */
async function until(what: () => boolean | Promise<boolean>, tries = 800): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await what()) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

for (const tier of tiers) {
  t.test(
    `${tier.name}: a hub closed with undelivered events leaves them to the next hub on the database`,
    async (t) => {
      const hook = await receiver(t);
      const dir = mkdtempSync(join(tmpdir(), 'hub-outbox-'));
      t.teardown(() => rmSync(dir, { recursive: true, force: true }));
      const db = await tier.database(t, dir);
      const notifications = {
        webhooks: [{ url: hook.url, events: ['package_published', 'upstream_unreachable'], secret: 'hook-secret' }],
        first_retry_secs: 0.05,
        poll_interval_secs: 0.1,
      };
      const first = await hubOn(t, join(dir, 'a'), db, notifications);
      const a = await first.hub.events.emit('upstream_unreachable', { registry: 'npm', probed: 3 });
      const b = await first.hub.events.emit('package_published', {
        registry: 'npm',
        package: 'hubdep',
        version: '1.0.0',
        user: 'ci',
      });
      await first.hub.events.emit('package_content_changed', { registry: 'npm' }); // not subscribed: no row
      t.ok(
        await until(async () => hook.refused() >= 4),
        'both events were attempted, more than once, while the receiver was down',
      );
      const pending = await deliveries(first, 'pending');
      t.same(
        pending.map((r) => r.event_id).sort(),
        [a.id, b.id].sort(),
        'both wait in the outbox; the unsubscribed event has no row',
      );
      t.same(
        (await deliveries(first)).map((r) => r.id).sort(),
        pending.map((r) => r.id).sort(),
        'and nothing else is listed',
      );
      await first.close();

      hook.state.up = true;
      const second = await hubOn(t, join(dir, 'b'), db, notifications);
      t.ok(await until(() => hook.got.length >= 2), 'the new hub delivered them');
      t.ok(
        await until(async () => (await deliveries(second, 'delivered')).length === 2),
        'both rows are marked delivered',
      );
      t.same(hook.got.map((g) => JSON.parse(g.body).id).sort(), [a.id, b.id].sort(), 'each event once');
      for (const g of hook.got) {
        t.equal(
          g.headers['x-hub-signature-256'],
          `sha256=${createHmac('sha256', 'hook-secret').update(g.body).digest('hex')}`,
          'signed over the exact body',
        );
        t.equal(g.headers['x-hub-delivery'], String(JSON.parse(g.body).id));
      }
      t.match(JSON.parse(hook.got.find((g) => g.headers['x-hub-event'] === 'package_published')!.body), {
        type: 'package_published',
        registry: 'npm',
        data: { package: 'hubdep', version: '1.0.0' },
      });
      const listed = await deliveries(second);
      t.ok(
        listed.every(
          (d) => d.attempts >= 2 && d.webhook === hook.url && d.finished_at !== null && d.next_attempt_at === null,
        ),
        'the listing counts the attempts of both hubs',
      );
    },
  );
}

t.test('a delivery is dead-lettered after max_attempts, and listed with its last error', async (t) => {
  const hook = await receiver(t);
  const dir = mkdtempSync(join(tmpdir(), 'hub-outbox-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const hub = await hubOn(
    t,
    dir,
    { client: 'sqlite', filename: join(dir, 'hub.db') },
    {
      webhooks: [{ url: `${hook.url}?token=abc`, events: ['upstream_unreachable'] }],
      max_attempts: 3,
      first_retry_secs: 0.02,
      poll_interval_secs: 0.05,
    },
  );
  await hub.hub.events.emit('upstream_unreachable', { registry: 'npm' });
  t.ok(await until(async () => (await deliveries(hub, 'dead')).length === 1), 'dead-lettered');
  const [dead] = await deliveries(hub, 'dead');
  t.match(dead, {
    event_type: 'upstream_unreachable',
    state: 'dead',
    attempts: 3,
    last_error: 'answered 503',
    webhook: hook.url,
    next_attempt_at: null,
  });
  t.equal(hook.refused(), 3, 'no attempt after the last');
  t.same(await deliveries(hub, 'pending'), []);
  t.match(await hub.hub.metrics.registry.metrics(), /hub_webhook_deliveries_total\{outcome="failed"\} 1/);
  const bad = await fetch(`${hub.url}/api/v1/admin/webhooks/deliveries?state=lost`, {
    headers: { authorization: `Bearer ${hub.adminToken}` },
  });
  t.equal(bad.status, 400);
  t.equal((await fetch(`${hub.url}/api/v1/admin/webhooks/deliveries`)).status, 401, 'the listing needs a token');
});

t.test(
  'two replicas on MariaDB deliver each event exactly once',
  { skip: TEST_MYSQL_URL ? false : 'HUB_TEST_MYSQL_URL is not set' },
  async (t) => {
    const hook = await receiver(t);
    const dir = mkdtempSync(join(tmpdir(), 'hub-outbox-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const made = await createTestDatabase(TEST_MYSQL_URL!);
    t.teardown(() => made.drop());
    const db: StoreDatabase = { client: 'mysql', url: made.url };
    const notifications = {
      webhooks: [{ url: hook.url, events: ['upstream_unreachable'] }],
      first_retry_secs: 0.02,
      poll_interval_secs: 0.02,
    };
    const blobs = join(dir, 'blobs');
    const one = await hubOn(t, join(dir, 'one'), db, notifications, blobs);
    const two = await hubOn(t, join(dir, 'two'), db, notifications, blobs);
    // Both loops race for every row: events stored on both replicas while the receiver refuses, then it comes up.
    const ids: number[] = [];
    for (let i = 0; i < 40; i++)
      ids.push((await (i % 2 ? two : one).hub.events.emit('upstream_unreachable', { registry: 'npm', n: i })).id);
    t.ok(await until(() => hook.refused() >= 40), 'attempted while the receiver was down');
    hook.state.up = true;
    for (let i = 40; i < 80; i++)
      ids.push((await (i % 2 ? two : one).hub.events.emit('upstream_unreachable', { registry: 'npm', n: i })).id);
    t.ok(await until(async () => (await deliveries(one, 'delivered')).length === 80), 'all 80 rows delivered');
    const counts = new Map<number, number>();
    for (const g of hook.got) counts.set(JSON.parse(g.body).id, (counts.get(JSON.parse(g.body).id) ?? 0) + 1);
    t.same(
      [...counts.keys()].sort((x, y) => x - y),
      ids.sort((x, y) => x - y),
      'every event arrived',
    );
    t.same(
      [...counts.entries()].filter(([, n]) => n !== 1),
      [],
      'none arrived twice',
    );
    t.equal(hook.got.length, 80);
    const byReplica = await Promise.all(
      [one, two].map(async (h) => /outcome="delivered"\} (\d+)/.exec(await h.hub.metrics.registry.metrics())?.[1]),
    );
    t.comment(`delivered by replica one: ${byReplica[0] ?? 0}, by replica two: ${byReplica[1] ?? 0}`);
  },
);

t.test('a row claimed by a replica that died is delivered by another once the claim runs out', async (t) => {
  const hook = await receiver(t);
  hook.state.up = true;
  const dir = mkdtempSync(join(tmpdir(), 'hub-outbox-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const hub = await hubOn(
    t,
    dir,
    { client: 'sqlite', filename: join(dir, 'hub.db') },
    { webhooks: [{ url: hook.url, events: ['upstream_unreachable'] }], poll_interval_secs: 60 },
  );
  // As a replica that claimed the row and died would leave it: claimed for another 300 ms, never finished.
  const claimedUntil = Date.now() + 300;
  const event = await hub.hub.db.transaction(async (trx) => {
    const [id] = (await trx('events').insert({
      type: 'upstream_unreachable',
      registry: 'npm',
      data: '{}',
      created_at: Date.now(),
    })) as number[];
    const body = JSON.stringify({
      id,
      type: 'upstream_unreachable',
      registry: 'npm',
      created_at: new Date().toISOString(),
      data: {},
    });
    await trx('webhook_outbox').insert({
      event_id: id,
      event_type: 'upstream_unreachable',
      hook_key: hookKey(hook.url),
      hook_url: hook.url,
      body,
      state: 'pending',
      attempts: 0,
      next_attempt_at: 0,
      claimed_until: claimedUntil,
      claim: 'a-dead-replica',
      created_at: Date.now(),
    });
    return Number(id);
  });
  // An event stored here starts a pass: it delivers its own row, and sees the other one held.
  await hub.hub.events.emit('upstream_unreachable', { registry: 'npm' });
  t.ok(await until(() => hook.got.length >= 2), 'both delivered, within the minute-long poll interval');
  const early = hook.got.find((g) => JSON.parse(g.body).id === event);
  t.ok(early, "the dead replica's row was delivered");
  t.same(await deliveries(hub, 'pending'), [], 'nothing left');
  t.ok(
    Number((await hub.hub.db('webhook_outbox').where({ event_id: event }).first()).finished_at) >= claimedUntil,
    'not before the claim ran out',
  );
});
