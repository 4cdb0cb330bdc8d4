import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import admin from '@hub/admin';
import npm from '@hub/kind-npm';
import {
  hubOnDatabase,
  npmFixtureHandler,
  signFlagRequest,
  startFixtureUpstream,
  startTestHub,
  storeTiers,
  type StoreDatabase,
} from '@hub/testkit';
import flags from '../src/index.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));
const SECRET = 'osv-current-secret';
const OLD_SECRET = 'osv-previous-secret';

async function setup(t: Test, db?: StoreDatabase) {
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
  t.teardown(() => upstream.close());
  const where = db ? hubOnDatabase(db) : {};
  const hub = await startTestHub({
    dir: t.testdir(),
    mysqlUrl: where.mysqlUrl,
    plugins: [npm, admin, flags],
    registries: [
      { name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url },
      { name: 'secure', type: 'npm', mode: 'proxy', upstream: upstream.url, security: {} },
    ],
    config: {
      ...where.config,
      flag_sources: [
        { name: 'osv', secret: SECRET, previous_secrets: [OLD_SECRET] },
        { name: 'scanner', secret: 'scanner-secret', max_effect: 'warn', registries: ['sec*'] },
        { name: 'limited', secret: 'limited-secret', max_flags_per_minute: 5 },
      ] as never,
      auth: { anonymous: [] },
    },
  });
  t.teardown(() => hub.close());
  const alice = await hub.token('alice', { roles: ['reader'] });
  const push = async (flagList: unknown[], source = 'osv', secret = SECRET) => {
    const body = JSON.stringify({ flags: flagList });
    const path = `/api/v1/flags/${source}`;
    const res = await fetch(`${hub.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signFlagRequest({ secret, method: 'POST', path, body }) },
      body,
    });
    return { status: res.status, json: (await res.json()) as any, retryAfter: res.headers.get('retry-after') };
  };
  const download = async (registry: string, name: string, version: string) => {
    const res = await fetch(`${hub.url}/proxy/${registry}/${name}/${version}/tarball`, {
      headers: { authorization: `Bearer ${alice}` },
    });
    await res.arrayBuffer();
    return res.status;
  };
  const api = async (path: string) =>
    (await (
      await fetch(`${hub.url}${path}`, { headers: { authorization: `Bearer ${hub.adminToken}` } })
    ).json()) as any;
  const listed = async (query = 'include_dead=true') => (await api(`/api/v1/admin/flags?${query}`)).flags as any[];
  return { ...hub, push, download, api, listed };
}

const flag = (over: Record<string, unknown> = {}) => ({
  external_id: 'GHSA-1',
  registry: 'npm',
  package_name: 'hubdemo',
  version: '1.0.0',
  kind: 'malware',
  effect: 'hard_block',
  ...over,
});

const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);
for (const tier of tiers) {
  t.test(
    `${tier.name}: a 1,000-flag batch stores its good items and answers the bad ones by index; 1,001 is 413`,
    async (t) => {
      const s = await setup(t, await tier.database(t, t.testdir()));
      const items: Record<string, unknown>[] = Array.from({ length: 1000 }, (_, i) =>
        flag({ external_id: `B-${i}`, package_name: `pkg-${i}`, severity: 'high' }),
      );
      items[3] = flag({ external_id: 'B-3', effect: 'explode' });
      items[500] = flag({ external_id: 'B-500', registry: 'nope' });
      items[998] = flag({ external_id: 'B-1', package_name: 'other' }); // a second decision about B-1
      items[999] = flag({ external_id: 'B-999', severity: 'urgent' });
      const res = await s.push(items);
      t.equal(res.status, 200);
      t.match(res.json, { accepted: 996, rejected: 4, effect_capped: 0 });
      t.equal(res.json.flags.length, 996);
      t.same(
        res.json.errors.map((e: any) => e.index),
        [3, 500, 998, 999],
        'errors in index order',
      );
      t.match(res.json.errors, [
        { reason: /effect/ },
        { reason: /no registry named "nope"/ },
        { reason: /"B-1" is already flags\[1\]/ },
        { reason: /severity/ },
      ]);
      const stored = await s.listed();
      t.equal(stored.length, 996, 'every good item is stored');
      t.notOk(
        stored.some((f) => ['B-3', 'B-500', 'B-999'].includes(f.external_id)),
        'no bad one',
      );
      t.equal(stored.find((f) => f.external_id === 'B-1').package_name, 'pkg-1', 'the first B-1 is the one stored');

      const tooMany = await s.push(Array.from({ length: 1001 }, (_, i) => flag({ external_id: `C-${i}` })));
      t.match(tooMany, { status: 413, json: { error: { code: 'payload_too_large', message: /at most 1000 flags/ } } });
      t.equal((await s.listed()).length, 996, 'nothing of the 1,001 stored');
    },
  );

  t.test(`${tier.name}: max_flags_per_minute: over it, 429 with Retry-After and nothing stored`, async (t) => {
    const s = await setup(t, await tier.database(t, t.testdir()));
    const ids = (prefix: string, n: number) =>
      Array.from({ length: n }, (_, i) => flag({ external_id: `${prefix}-${i}` }));
    const first = await s.push(ids('A', 3), 'limited', 'limited-secret');
    t.match(first, { status: 200, json: { accepted: 3 } });
    const over = await s.push(ids('B', 3), 'limited', 'limited-secret');
    // A minute boundary between the two pushes would reset the count: then the second push is accepted.
    if (over.status === 200) t.comment('a minute boundary fell between the pushes');
    else {
      t.match(over, { status: 429, json: { error: { code: 'rate_limited' } } });
      t.ok(Number(over.retryAfter) >= 1 && Number(over.retryAfter) <= 60, `Retry-After ${over.retryAfter}`);
      t.same(
        (await s.listed()).map((f) => f.external_id).sort(),
        ['A-0', 'A-1', 'A-2'],
        'nothing of the refused batch stored',
      );
      t.match(
        await s.push(ids('C', 2), 'limited', 'limited-secret'),
        { status: 200, json: { accepted: 2 } },
        'a batch that fits the rest of the minute is taken',
      );
    }
    t.equal(
      (await s.push(ids('D', 6), 'limited', 'limited-secret')).status,
      429,
      'a batch larger than the limit never fits',
    );
    t.equal((await s.push(ids('E', 6))).status, 200, "another source's budget is its own");
  });
}

t.test('per-item fields: severity, reference_url, fixed_version, expires_at are validated and stored', async (t) => {
  const s = await setup(t);
  const good = flag({
    external_id: 'F-1',
    severity: 'critical',
    reference_url: 'https://advisories.example.test/F-1',
    fixed_version: '1.0.1',
    expires_at: '2999-01-01T00:00:00+02:00',
  });
  const bad: Array<[Record<string, unknown>, RegExp]> = [
    [{ severity: 'urgent' }, /severity/],
    [{ severity: 'High' }, /severity/],
    [{ reference_url: 'ftp://advisories.example.test/x' }, /reference_url: must be an http/],
    [{ reference_url: 'not a url' }, /reference_url: must be an http/],
    [{ reference_url: 'javascript:alert(1)' }, /reference_url: must be an http/],
    [{ fixed_version: '' }, /fixed_version/],
    [{ expires_at: '2999-01-01' }, /expires_at: "2999-01-01" is not an RFC 3339 time/],
    [{ expires_at: 'tomorrow' }, /expires_at/],
    [{ expires_at: '2999-13-45T00:00:00Z' }, /expires_at/],
    [{ expires_at: 1234567890 }, /expires_at/],
    [{ colour: 'red' }, /unknown member "colour"/],
  ];
  const res = await s.push([
    good,
    ...bad.map(([over], i) => flag({ external_id: `X-${i}`, ...over })),
    'not an object',
  ]);
  t.match(res.json, { accepted: 1, rejected: bad.length + 1 });
  for (const [i, [, reason]] of bad.entries()) t.match(res.json.errors[i], { index: i + 1, reason }, String(reason));
  t.match(res.json.errors[bad.length], { index: bad.length + 1, reason: /must be a JSON object/ });
  t.match(await s.listed(), [
    {
      external_id: 'F-1',
      severity: 'critical',
      reference_url: 'https://advisories.example.test/F-1',
      fixed_version: '1.0.1',
      expires_at: '2998-12-31T22:00:00.000Z',
      state: 'active',
    },
  ]);
  t.equal(await s.download('npm', 'hubdemo', '1.0.0'), 403, 'not expired yet: refused');
});

t.test('expires_at: once it passes, the flag acts as lifted and lists as expired', async (t) => {
  const s = await setup(t);
  t.equal(await s.download('npm', 'hubdemo', '1.0.0'), 200);
  await s.hub.audit.flush();
  const past = new Date(Date.now() - 60_000).toISOString();
  const soon = new Date(Date.now() + 3_000).toISOString();
  const res = await s.push([
    flag({ external_id: 'PAST', expires_at: past }),
    flag({ external_id: 'SOON', version: '1.1.0', expires_at: soon }),
  ]);
  t.match(res.json, { accepted: 2, rejected: 0 });
  t.equal(await s.download('npm', 'hubdemo', '1.0.0'), 200, 'an already expired flag refuses nothing');
  t.equal(await s.download('npm', 'hubdemo', '1.1.0'), 403, 'an unexpired one refuses');
  t.same(
    (await s.listed('')).map((f) => f.external_id),
    ['SOON'],
    'the default listing leaves out expired flags',
  );
  t.match(
    (await s.listed()).find((f) => f.external_id === 'PAST'),
    { state: 'expired', expires_at: past },
  );
  const exposure = (await s.api('/api/v1/admin/exposure')).rows as any[];
  t.match(
    exposure.find((r) => r.external_id === 'PAST'),
    { flag_state: 'expired' },
    'the exposure report shows it expired',
  );
  // "Soon" against "never": the flag expires in 3 s; 30 s is only a bound for a loaded machine.
  const from = Date.now();
  let status = 403;
  while (status === 403 && Date.now() - from < 30_000) {
    await new Promise((r) => setTimeout(r, 250));
    status = await s.download('npm', 'hubdemo', '1.1.0');
  }
  t.equal(status, 200, `served again once expires_at passed (after ${Date.now() - from} ms)`);
  t.equal((await s.listed()).find((f) => f.external_id === 'SOON').state, 'expired');
});

t.test('max_effect caps a stronger effect; registries scopes a source', async (t) => {
  const s = await setup(t);
  const res = await s.push(
    [
      flag({ external_id: 'S-1', registry: 'secure' }),
      flag({ external_id: 'S-2', registry: 'secure', effect: 'info', version: '1.1.0' }),
      flag({ external_id: 'S-3', registry: 'npm' }),
    ],
    'scanner',
    'scanner-secret',
  );
  t.equal(res.status, 200);
  t.match(res.json, {
    accepted: 2,
    rejected: 1,
    effect_capped: 1,
    errors: [{ index: 2, reason: /flag source scanner may not flag registry npm/ }],
  });
  t.match(res.json.flags, [
    { external_id: 'S-1', effect: 'warn', requested_effect: 'hard_block' },
    { external_id: 'S-2', effect: 'info' },
  ]);
  t.notOk('requested_effect' in res.json.flags[1], 'an uncapped flag has no requested_effect');
  t.equal(await s.download('secure', 'hubdemo', '1.0.0'), 200, 'stored as warn: not refused');
  t.same(
    (await s.listed()).map((f) => f.external_id),
    ['S-1', 'S-2'],
    'the out-of-scope flag is not stored',
  );
});

t.test('secret rotation: a previous secret is accepted; the audit row says which secret matched', async (t) => {
  const s = await setup(t);
  t.match(
    await s.push([flag({ external_id: 'R-1' })], 'osv', OLD_SECRET),
    { status: 200, json: { accepted: 1 } },
    'the previous secret',
  );
  t.match(
    await s.push([flag({ external_id: 'R-2' })], 'osv', SECRET),
    { status: 200, json: { accepted: 1 } },
    'the current secret',
  );
  t.equal((await s.push([flag({ external_id: 'R-3' })], 'osv', 'never-configured')).status, 401, 'any other secret');
  t.equal(
    (await s.push([flag({ external_id: 'R-4' })], 'scanner', OLD_SECRET)).status,
    401,
    "another source's previous secret",
  );
  await s.hub.audit.flush();
  const entries = (await s.api('/api/v1/admin/audit-log?action=flag_raise')).entries as any[];
  const rows = entries.map((e) => [e.user_id, e.outcome, e.detail]).reverse();
  // A refused request proves no source: no user id, and one such row per address a minute (issue 26).
  t.match(rows, [
    ['flag-source:osv', 'allowed', /^secret: previous; raised 1: R-1$/],
    ['flag-source:osv', 'allowed', /^secret: current; raised 1: R-2$/],
    [null, 'denied', 'not signed by the source the URL names ("osv")'],
  ]);
  t.equal(rows.length, 3);
});

t.test('metrics: active flags, pushes by outcome, denials by registry', async (t) => {
  const s = await setup(t);
  await s.push([
    flag({ external_id: 'M-1' }),
    flag({ external_id: 'M-2', effect: 'warn', version: '1.1.0' }),
    flag({ external_id: 'M-3', registry: 'nope' }),
    flag({ external_id: 'M-4', expires_at: '2000-01-01T00:00:00Z', version: '2.0.0' }),
  ]);
  await s.push([flag({ external_id: 'M-5', registry: 'secure' })], 'scanner', 'scanner-secret');
  await s.push([flag({ external_id: 'M-6' })], 'osv', 'wrong');
  await s.push(
    Array.from({ length: 6 }, (_, i) => flag({ external_id: `L-${i}` })),
    'limited',
    'limited-secret',
  );
  t.equal(await s.download('npm', 'hubdemo', '1.0.0'), 403);
  t.equal(await s.download('npm', 'hubdemo', '1.0.0'), 403);
  const text = await (await fetch(`${s.url}/metrics`)).text();
  const value = (series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.split(' ')[1]);
  };
  t.equal(value('hub_flags_active{source="osv",effect="hard_block"}'), 1, 'an expired flag is not active');
  t.equal(value('hub_flags_active{source="osv",effect="warn"}'), 1);
  t.equal(value('hub_flags_active{source="scanner",effect="warn"}'), 1, 'stored capped');
  t.equal(value('hub_flags_active{source="scanner",effect="hard_block"}'), 0);
  t.equal(value('hub_flag_push_total{source="osv",outcome="accepted"}'), 3);
  t.equal(value('hub_flag_push_total{source="osv",outcome="rejected"}'), 1);
  t.equal(value('hub_flag_push_total{source="osv",outcome="bad_signature"}'), 1);
  t.equal(value('hub_flag_push_total{source="scanner",outcome="accepted"}'), 1);
  t.equal(value('hub_flag_push_total{source="scanner",outcome="capped"}'), 1);
  t.equal(value('hub_flag_push_total{source="limited",outcome="rate_limited"}'), 6);
  t.equal(value('hub_flag_denials_total{registry="npm"}'), 2);
});
