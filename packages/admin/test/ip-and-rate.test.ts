import t from 'tap';
import { auditRows, setup } from './setup.js';

const json = { accept: 'application/json' };

t.test('IPv4 ranges block their addresses only; /healthz always answers', async (t) => {
  const s = await setup(t);
  const admin = (method: string, path: string, body?: unknown) =>
    s.api(method, path, { body, localAddress: '127.0.0.9' });
  t.equal((await admin('POST', '/api/v1/admin/ip-blocks', { ip: '127.0.0.2/31' })).json.ip, '127.0.0.2/31');
  const status = async (from: string, path = '/api/v1/admin/blocks') =>
    (await s.api('GET', path, { localAddress: from })).status;
  t.equal(await status('127.0.0.2'), 403);
  t.equal(await status('127.0.0.3'), 403);
  t.equal(await status('127.0.0.4'), 200, 'outside the range');
  t.equal(await status('127.0.0.1'), 200);
  t.equal(await status('127.0.0.2', '/healthz'), 200, '/healthz is exempt');
  t.equal(await status('127.0.0.2', '/readyz'), 403, 'other routes are not');
  t.equal(await status('127.0.0.2', '/proxy/npm/hubdemo'), 403, 'registry routes are not');
  t.equal(
    (await admin('DELETE', `/api/v1/admin/ip-blocks/${encodeURIComponent('127.0.0.3/31')}`)).status,
    200,
    'removed by any spelling of the range',
  );
  t.equal(await status('127.0.0.2'), 200);
  t.same((await admin('GET', '/api/v1/admin/ip-blocks')).json, { ip_blocks: [] });
});

t.test(
  'behind a trusted proxy the client is the last X-Forwarded-For entry, IPv4 or IPv6; nothing else is believed',
  async (t) => {
    const s = await setup(t, { config: { server: { trust_proxy: true } } });
    const from = (xff: string | undefined, extra: Record<string, string> = {}) =>
      s.api('GET', '/api/v1/admin/blocks', { headers: { ...(xff ? { 'x-forwarded-for': xff } : {}), ...extra } });
    const admin = (body: unknown) =>
      s.api('POST', '/api/v1/admin/ip-blocks', { body, headers: { 'x-forwarded-for': '192.0.2.10' } });
    t.equal((await admin({ ip: '2001:db8::/32' })).status, 201);
    t.equal((await admin({ ip: '198.51.100.7' })).status, 201);
    t.equal((await from('2001:db8:1::5')).json.error.code, 'ip_blocked', 'an IPv6 client in the range');
    t.equal((await from('2001:DB8::0:5')).status, 403, 'however it is spelt');
    t.equal((await from('2001:db9::5')).status, 200);
    t.equal((await from('198.51.100.7')).status, 403);
    t.equal((await from('::ffff:198.51.100.7')).status, 403, 'an IPv4-mapped spelling');
    t.equal(
      (await from('198.51.100.7, 203.0.113.1')).status,
      200,
      "an entry before the last one is the client's own claim",
    );
    t.equal((await from('203.0.113.1, 198.51.100.7')).status, 403, 'the last entry is the one our proxy wrote');
    t.equal(
      (await from(undefined, { 'x-real-ip': '198.51.100.7', forwarded: 'for=198.51.100.7' })).status,
      200,
      'X-Real-IP and Forwarded are ignored',
    );
    const rows = (await auditRows(s)).filter((r) => r.code === 'ip_blocked');
    t.ok(
      rows.some((r) => r.ip_address === '2001:db8:1::5'),
      'the audit log has the canonical IPv6 address',
    );
    t.ok(rows.some((r) => r.ip_address === '198.51.100.7'));
  },
);

t.test('without trust_proxy, X-Forwarded-For changes nothing', async (t) => {
  const s = await setup(t);
  t.equal((await s.api('POST', '/api/v1/admin/ip-blocks', { body: { ip: '198.51.100.7' } })).status, 201);
  t.equal((await s.api('GET', '/api/v1/admin/blocks', { headers: { 'x-forwarded-for': '198.51.100.7' } })).status, 200);
  t.equal(
    (
      await s.api('POST', '/api/v1/admin/ip-blocks', {
        body: { ip: '127.0.0.1' },
        headers: { 'x-forwarded-for': '192.0.2.1' },
      })
    ).json.error.code,
    'bad_request',
    "the caller's own address is its socket address",
  );
});

t.test('a 401 challenge to a client without credentials does not count against its rate', async (t) => {
  const s = await setup(t, { config: { limits: { rate_per_ip: 0.001, burst_per_ip: 3 } } });
  const token = await s.token('ci', { roles: ['reader'] });
  // maven and NuGet ask without credentials first, every time.
  for (let i = 0; i < 10; i++) {
    const challenge = await s.api('GET', '/proxy/npm/hubdemo', { token: null, headers: json });
    t.equal(challenge.status, 401, `challenge ${i + 1}`);
    t.match(challenge.headers['www-authenticate'], /Basic/);
  }
  const statuses = [];
  for (let i = 0; i < 4; i++)
    statuses.push((await s.api('GET', '/proxy/npm/hubdemo', { token, headers: json })).status);
  t.same(statuses, [200, 200, 200, 429], 'the whole burst is left for the requests with credentials');
  const wrong = await s.api('GET', '/proxy/npm/hubdemo', {
    token: 'hub_wrong',
    headers: json,
    localAddress: '127.0.0.5',
  });
  t.equal(wrong.status, 401, 'a wrong token is a denial');
  const rows = await auditRows(s);
  // Challenges are written at most once per IP and second (issue 10), so at least one row, never ten a second.
  const challengedRows = rows.filter((r) => r.outcome === 'challenged').length;
  t.ok(challengedRows >= 1 && challengedRows <= 10, `${challengedRows} challenged rows`);
  t.equal(
    rows.filter((r) => r.outcome === 'denied' && r.code === 'unauthenticated').length,
    1,
    'only the wrong token is denied',
  );
  const denied = await s.api('GET', '/api/v1/admin/audit-log?denied=true', { localAddress: '127.0.0.6' });
  t.notOk(
    denied.json.entries.some((e: { outcome: string }) => e.outcome === 'challenged'),
    'challenges are not in the denied view',
  );
});

t.test('a client hammering after a refusal writes one audit row per second, not one per request', async (t) => {
  const s = await setup(t, { config: { limits: { rate_per_ip: 0.001, burst_per_ip: 1 } } });
  const started = Date.now();
  for (let i = 0; i < 30; i++) await s.api('GET', '/readyz');
  const seconds = Math.ceil((Date.now() - started) / 1000);
  const rows = (await auditRows(s)).filter((r) => r.code === 'rate_limited');
  // At most one row per one-second window the refusals spanned, however slow the machine.
  t.ok(rows.length >= 1 && rows.length <= seconds + 1, `${rows.length} rows for 29 refusals over ${seconds}s`);
  const metrics = await (await s.api('GET', '/metrics', { localAddress: '127.0.0.7' })).text;
  t.match(metrics, /hub_audit_suppressed_total \d+/);
  t.match(metrics, /hub_access_denials_total\{code="rate_limited"\} 29/, 'every refusal is counted');
});
