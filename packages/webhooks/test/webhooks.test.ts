import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { holdAll, setup } from './setup.js';

interface Delivery {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A loopback webhook receiver; `failFirst` answers 500 to that many deliveries first. */
async function receiver(t: Test, failFirst = 0) {
  const got: Delivery[] = [];
  let failures = failFirst;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (failures-- > 0) {
        res.writeHead(500).end();
        return;
      }
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, got, server };
}

const until = async (what: () => boolean) => {
  for (let i = 0; i < 200 && !what(); i++) await new Promise((r) => setTimeout(r, 25));
};

t.test('subscribed events are delivered, signed like flag requests; others are not', async (t) => {
  const hook = await receiver(t);
  const all = await receiver(t);
  const s = await setup(t, {
    config: {
      notifications: {
        webhooks: [
          { url: hook.url, events: ['package_disappeared_upstream'], secret: 'hook-secret' },
          { url: all.url, events: ['package_disappeared_upstream', 'upstream_unreachable'] },
        ],
      },
    },
  });
  await holdAll(s);
  s.unpublish('hubdep', '1.0.0');
  await s.api('POST', '/api/v1/admin/upstream/sweep', {});
  await s.api('POST', '/api/v1/admin/upstream/sweep', {});
  s.upstream.down();
  await s.api('POST', '/api/v1/admin/upstream/sweep', {});
  await until(() => hook.got.length >= 1 && all.got.length >= 2);
  t.equal(hook.got.length, 1, 'one delivery: upstream_unreachable is not subscribed here');
  const [d] = hook.got;
  const event = JSON.parse(d!.body);
  t.match(event, {
    type: 'package_disappeared_upstream',
    registry: 'npm',
    data: { package_name: 'hubdep', version: '1.0.0', misses: 2, policy: 'audit' },
  });
  t.equal(d!.headers['x-hub-event'], 'package_disappeared_upstream');
  t.equal(d!.headers['x-hub-delivery'], String(event.id));
  t.equal(
    d!.headers['x-hub-signature-256'],
    `sha256=${createHmac('sha256', 'hook-secret').update(d!.body).digest('hex')}`,
    'HMAC-SHA256 of the exact body',
  );
  t.same(
    all.got.map((g) => JSON.parse(g.body).type),
    ['package_disappeared_upstream', 'upstream_unreachable'],
  );
  t.notOk(all.got[0]!.headers['x-hub-signature-256'], 'no secret, no signature');
});

t.test('a failed delivery is retried', async (t) => {
  const hook = await receiver(t, 1);
  const s = await setup(t, {
    config: {
      notifications: { webhooks: [{ url: hook.url, events: ['upstream_unreachable'] }], first_retry_secs: 0.05 },
    },
  });
  await holdAll(s);
  s.upstream.down();
  await s.api('POST', '/api/v1/admin/upstream/sweep', {});
  await until(() => hook.got.length >= 1);
  t.equal(hook.got.length, 1, 'delivered on the second attempt');
  const metrics = await (await fetch(`${s.url}/metrics`)).text();
  t.match(metrics, /hub_webhook_deliveries_total\{outcome="retried"\} 1/);
  t.match(metrics, /hub_webhook_deliveries_total\{outcome="delivered"\} 1/);
});
