import http from 'node:http';
import type { Socket } from 'node:net';
import t, { type Test } from 'tap';
import { startTestHub, type TestHub } from '@hub/testkit';
import { definePlugin, HubError } from '../src/index.js';
import { createClientAddress, rateLimitKey } from '../src/server/client-address.js';

/** A client rule refusing exact addresses, as @hub/ip-blocks refuses its blocks: what the gate sees as the client. */
function blockedAddresses(blocked: Set<string>) {
  const refusal = (ip: string) =>
    blocked.has(ip) ? new HubError('ip_blocked', `requests from ${ip} are blocked`) : null;
  return definePlugin({
    id: 'blocked-addresses',
    contract: 1,
    description: 'refuses the addresses in a set',
    setup(ctx) {
      ctx.clientRules.push({ refusalNow: refusal, refusal: async (ip) => refusal(ip) });
    },
  });
}

/** A GET of /readyz from a chosen loopback source address, with the given headers; the status. */
function status(hub: TestHub, headers: Record<string, string>, localAddress = '127.0.0.1'): Promise<number> {
  const u = new URL(hub.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, path: '/readyz', headers, localAddress, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Blocked addresses per hub (hubWith's rule reads them). */
const blocks = new WeakMap<TestHub, Set<string>>();

async function hubWith(
  t: Test,
  server: Record<string, unknown>,
  limits: Record<string, unknown> = {},
): Promise<TestHub> {
  const blocked = new Set<string>();
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [blockedAddresses(blocked)],
    registries: [],
    config: { server, limits },
  });
  blocks.set(hub, blocked);
  t.teardown(() => hub.close());
  return hub;
}

async function blockIp(hub: TestHub, ip: string) {
  blocks.get(hub)!.add(ip);
}

t.test('a forged X-Forwarded-For from a peer that is not a trusted proxy is ignored (issue 10)', async (t) => {
  const hub = await hubWith(t, { trust_proxy: true, trusted_proxies: ['127.0.0.2'] });
  await blockIp(hub, '198.51.100.7');
  await blockIp(hub, '127.0.0.3');
  t.equal(
    await status(hub, { 'x-forwarded-for': '198.51.100.7' }, '127.0.0.1'),
    200,
    'an untrusted peer cannot take a blocked address',
  );
  t.equal(
    await status(hub, { 'x-forwarded-for': '203.0.113.1' }, '127.0.0.3'),
    403,
    'nor leave its own blocked address behind',
  );
  t.equal(await status(hub, { 'x-forwarded-for': '198.51.100.7' }, '127.0.0.2'), 403, 'the trusted proxy is believed');
});

t.test(
  'a chain of two trusted proxies: the client is the first untrusted address from the right (issue 10)',
  async (t) => {
    // 127.0.0.1 is the proxy in front of hub; 192.0.2.10 an outer one that appended what it saw.
    const hub = await hubWith(t, { trust_proxy: true, trusted_proxies: ['127.0.0.1', '192.0.2.0/24'] });
    await blockIp(hub, '198.51.100.7');
    t.equal(await status(hub, { 'x-forwarded-for': '198.51.100.7, 192.0.2.10' }), 403, 'the outer proxy is skipped');
    t.equal(
      await status(hub, { 'x-forwarded-for': '203.0.113.5, 198.51.100.7, 192.0.2.10' }),
      403,
      'what the client wrote itself does not rescue it',
    );
    t.equal(
      await status(hub, { 'x-forwarded-for': '198.51.100.7, 203.0.113.5, 192.0.2.10' }),
      200,
      'a claimed address left of the client is not believed',
    );
    t.equal(await status(hub, { 'x-forwarded-for': '198.51.100.7' }), 403, 'one hop');
    t.equal(await status(hub, { 'x-forwarded-for': '[198.51.100.7]:4711, 192.0.2.10:80' }), 403, 'entries with ports');
  },
);

t.test(
  'IPv6 clients share a rate-limit bucket per /64; IP blocks still match the full address (issue 10)',
  async (t) => {
    const hub = await hubWith(t, { trust_proxy: true }, { rate_per_ip: 0.001, burst_per_ip: 1 });
    const from = (ip: string) => status(hub, { 'x-forwarded-for': ip });
    t.equal(await from('2001:db8:1:2::1'), 200);
    t.equal(
      await from('2001:db8:1:2:ffff:ffff:ffff:fffe'),
      429,
      'another address of the same /64 finds the bucket empty',
    );
    t.equal(await from('2001:db8:1:3::1'), 200, 'the next /64 has its own');
    t.equal(await from('198.51.100.8'), 200, 'IPv4 is still per address');
    t.equal(await from('198.51.100.9'), 200);
    await blockIp(hub, '2001:db8:1:4::1');
    t.equal(await from('2001:db8:1:4::1'), 403, 'the blocked address');
    t.equal(await from('2001:db8:1:4::2'), 200, 'another address of its /64 is served');
    t.equal(rateLimitKey('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64');
    t.equal(rateLimitKey('198.51.100.8'), '198.51.100.8');
  },
);

t.test(
  "X-Forwarded-Proto and X-Forwarded-Host: the trusted proxy's (last) value, never an untrusted peer's",
  async (t) => {
    const read = createClientAddress({ trustProxy: true, trustedProxies: ['127.0.0.1'] });
    const req = (remoteAddress: string, headers: Record<string, string>) =>
      ({ socket: { remoteAddress } as Socket, headers }) as unknown as http.IncomingMessage;
    const forwarded = {
      host: 'hub:8080',
      'x-forwarded-proto': 'http, https',
      'x-forwarded-host': 'evil.example, hub.example',
      'x-forwarded-for': '203.0.113.9',
    };
    t.same(read(req('127.0.0.1', forwarded)), { ip: '203.0.113.9', protocol: 'https', host: 'hub.example' });
    t.same(read(req('203.0.113.1', forwarded)), {
      ip: '203.0.113.1',
      protocol: 'http',
      host: 'hub:8080',
      untrustedForward: true,
    });
    t.same(
      read(req('127.0.0.1', { host: 'hub:8080', 'x-forwarded-host': 'bad host/x' })),
      { ip: '127.0.0.1', protocol: 'http', host: 'hub:8080' },
      'a malformed host is not used',
    );
    const off = createClientAddress({ trustProxy: false, trustedProxies: ['127.0.0.1'] });
    t.same(
      off(req('::ffff:127.0.0.1', forwarded)),
      { ip: '127.0.0.1', protocol: 'http', host: 'hub:8080' },
      'without trust_proxy nothing is read',
    );
  },
);
