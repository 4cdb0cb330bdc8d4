import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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
  parseCsv,
} from '@hub/testkit';
import flags from '../src/index.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));
const SECRET = 'osv-shared-secret';
const sign = (payload: string, secret = SECRET) =>
  `sha256=${createHmac('sha256', secret).update(payload).digest('hex')}`;

type Signing = {
  source?: string;
  secret?: string;
  signature?: string | null;
  timestamp?: number;
  delivery?: string;
  spec?: boolean;
};

async function setup(t: Test, db?: StoreDatabase, extra: Record<string, Record<string, unknown>> = {}) {
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
        { name: 'osv', secret: SECRET },
        { name: 'quiet', secret: 'other' },
        { name: 'legacy', secret: SECRET, allow_unsigned_time: true },
      ] as never,
      auth: { anonymous: [] },
      ...extra,
    },
  });
  t.teardown(() => hub.close());
  const alice = await hub.token('alice', { roles: ['reader'] });
  /** Signed as a source does (decision 0014); `spec: true` signs the base string alone, with no time or delivery. */
  const headersFor = (
    method: 'POST' | 'DELETE',
    path: string,
    body: string | undefined,
    opts: Signing,
  ): Record<string, string> => {
    const secret = opts.secret ?? SECRET;
    const headers = opts.spec
      ? { 'x-hub-signature-256': sign(method === 'DELETE' ? `DELETE\n${path}` : body!, secret) }
      : signFlagRequest({ secret, method, path, body, timestamp: opts.timestamp, delivery: opts.delivery });
    if (opts.signature === null) delete (headers as Record<string, string>)['x-hub-signature-256'];
    else if (opts.signature !== undefined) headers['x-hub-signature-256'] = opts.signature;
    return headers;
  };
  const send = async (method: 'POST' | 'DELETE', path: string, headers: Record<string, string>, body?: string) => {
    const res = await fetch(`${hub.url}${path}`, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body,
    });
    return { status: res.status, json: (await res.json()) as any, headers };
  };
  const push = async (flagList: unknown[], opts: Signing = {}) => {
    const body = JSON.stringify({ flags: flagList });
    const path = `/api/v1/flags/${opts.source ?? 'osv'}`;
    return send('POST', path, headersFor('POST', path, body, opts), body);
  };
  const lift = async (externalId: string, opts: Signing = {}) => {
    const path = `/api/v1/flags/${opts.source ?? 'osv'}/${externalId}`;
    return send('DELETE', path, headersFor('DELETE', path, undefined, opts));
  };
  const download = async (registry: string, name: string, version: string, token = alice) => {
    const res = await fetch(`${hub.url}/proxy/${registry}/${name}/${version}/tarball`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = res.status === 200 ? null : await res.json();
    if (res.status === 200) await res.arrayBuffer();
    return { status: res.status, body: body as any };
  };
  const api = async (path: string) => {
    const res = await fetch(`${hub.url}${path}`, { headers: { authorization: `Bearer ${hub.adminToken}` } });
    return { status: res.status, text: await res.text() };
  };
  return { ...hub, upstream, alice, push, lift, send, download, api };
}

const flag = (over: Record<string, unknown> = {}) => ({
  external_id: 'GHSA-1',
  registry: 'npm',
  package_name: 'hubdemo',
  version: '1.0.0',
  kind: 'malware',
  effect: 'hard_block',
  summary: 'steals tokens',
  ...over,
});

t.test('a signed hard_block flag refuses the version at once; lifting it leaves a tombstone', async (t) => {
  const s = await setup(t);
  t.equal((await s.download('npm', 'hubdemo', '1.0.0')).status, 200, 'served before the flag');
  const pushed = await s.push([flag()]);
  t.equal(pushed.status, 200);
  t.match(pushed.json, {
    accepted: 1,
    flags: [
      {
        source: 'osv',
        external_id: 'GHSA-1',
        registry: 'npm',
        package_name: 'hubdemo',
        version: '1.0.0',
        kind: 'malware',
        effect: 'hard_block',
        state: 'active',
        lifted_at: null,
      },
    ],
  });
  const refused = await s.download('npm', 'hubdemo', '1.0.0');
  t.equal(refused.status, 403, 'the cached copy is refused too');
  t.match(refused.body, {
    error: {
      code: 'package_blocked',
      message: /flagged malware \(hard_block\) by flag source osv, GHSA-1: steals tokens/,
    },
  });
  t.equal((await s.download('npm', 'hubdemo', '1.1.0')).status, 200, 'other versions are served');

  const listed = JSON.parse((await s.api('/api/v1/admin/flags')).text);
  t.match(listed.flags, [{ external_id: 'GHSA-1', state: 'active' }]);
  const lifted = await s.lift('GHSA-1');
  t.match(lifted, { status: 200, json: { flag: { external_id: 'GHSA-1', state: 'tombstone' } } });
  t.ok(lifted.json.flag.lifted_at);
  t.equal((await s.download('npm', 'hubdemo', '1.0.0')).status, 200, 'served again');
  t.same(JSON.parse((await s.api('/api/v1/admin/flags')).text).flags, [], 'tombstones are hidden by default');
  t.match(JSON.parse((await s.api('/api/v1/admin/flags?include_dead=true')).text).flags, [
    { external_id: 'GHSA-1', state: 'tombstone' },
  ]);
  t.equal((await s.lift('GHSA-404')).status, 404, 'lifting an unknown flag');
  const log = JSON.parse((await s.api('/api/v1/admin/audit-log?action=flag_raise,flag_lift')).text).entries;
  t.match(
    log.map((e: any) => [e.action, e.user_id, e.outcome]),
    [
      ['flag_lift', 'flag-source:osv', 'allowed'],
      ['flag_lift', 'flag-source:osv', 'allowed'],
      ['flag_raise', 'flag-source:osv', 'allowed'],
    ],
  );
});

t.test('signatures: missing, wrong, for another source, or for an unknown source: the same 401', async (t) => {
  const s = await setup(t);
  const answers = [
    await s.push([flag()], { signature: null }),
    await s.push([flag()], { signature: 'sha256=00' }),
    await s.push([flag()], { secret: 'other' }),
    await s.push([flag()], { source: 'nobody' }),
    await s.lift('GHSA-1', { secret: 'wrong' }),
    await s.lift('GHSA-1', { source: 'nobody' }),
  ];
  for (const a of answers)
    t.match(a, {
      status: 401,
      json: {
        error: {
          code: 'invalid_signature',
          message: 'the request is not signed by a configured flag source (X-Hub-Signature-256)',
        },
      },
    });
  t.equal((await s.download('npm', 'hubdemo', '1.0.0')).status, 200, 'nothing was flagged');
  await s.hub.audit.flush();
  // Issue 26: anyone can send these, so one address writes one row a minute, and the URL names no user.
  const denied = JSON.parse((await s.api('/api/v1/admin/audit-log?denied=true')).text).entries;
  t.equal(denied.length, 1, 'one denied audit-log entry for six refusals from one address within a minute');
  t.match(
    denied[0],
    { user_id: null, code: 'invalid_signature', detail: 'not signed by the source the URL names ("osv")' },
    'no user id taken from the URL',
  );
  const metrics = await (await fetch(`${s.url}/metrics`)).text();
  t.match(metrics, /^hub_audit_suppressed_total 5$/m, 'the other five are counted');
  t.equal((await s.push([flag()], { source: 'quiet', secret: 'other' })).status, 200, "a source's own secret works");
  await s.hub.audit.flush();
  const raised = JSON.parse((await s.api('/api/v1/admin/audit-log?action=flag_raise&outcome=allowed')).text).entries;
  t.match(
    raised[0],
    { user_id: 'flag-source:quiet', outcome: 'allowed' },
    "a proven source is the row's user, and its rows are not throttled",
  );
});

t.test('bad flags are per-item errors; the good ones of the batch are stored', async (t) => {
  const s = await setup(t);
  const cases: Array<[Record<string, unknown>, RegExp]> = [
    [flag({ registry: 'nope' }), /^registry: no registry named "nope"$/],
    [flag({ effect: 'explode' }), /effect/],
    [flag({ version: undefined }), /give version or version_range/],
    [flag({ version_range: '*' }), /not both/],
    [
      flag({ version_range: '[1.0,2.0)', version: undefined }),
      /^version_range: "\[1\.0,2\.0\)" is not a npm version range: /,
    ],
    [flag({ version_range: '>= 1.0.0, < 2', version: undefined }), /^version_range: .* is not a npm version range/],
    [flag({ version_range: `${'>'.repeat(300)}1.0.0`, version: undefined }), /version_range/],
    [flag({ version_range: '', version: undefined }), /version_range/],
    [flag({ package_name: 'Not A Name' }), /not a valid npm package/],
  ];
  for (const [i, [item, reason]] of cases.entries()) {
    const res = await s.push([flag({ external_id: `OK-${i}` }), { ...item, external_id: `BAD-${i}` }]);
    t.equal(res.status, 200, String(reason));
    t.match(res.json, { accepted: 1, rejected: 1, effect_capped: 0, flags: [{ external_id: `OK-${i}` }] });
    t.equal(res.json.errors.length, 1);
    t.equal(res.json.errors[0].index, 1);
    t.match(res.json.errors[0].reason, reason);
  }
  const dup = await s.push([flag(), flag({ summary: 'a different decision' })]);
  t.match(
    dup.json,
    {
      accepted: 1,
      rejected: 1,
      errors: [{ index: 1, reason: 'external_id: "GHSA-1" is already flags[0] in this batch' }],
      flags: [{ external_id: 'GHSA-1', summary: 'steals tokens' }],
    },
    'an external_id named twice: the first is stored, the second is an error',
  );
  const stored = JSON.parse((await s.api('/api/v1/admin/flags?include_dead=true')).text).flags.map(
    (f: any) => f.external_id,
  );
  t.same(stored, [...cases.map((_, i) => `OK-${i}`), 'GHSA-1'], 'every good flag stored, no bad one');
  t.match(
    await s.push([]),
    { status: 400, json: { error: { code: 'bad_request', message: /flags/ } } },
    'an empty batch',
  );
  t.match(await s.send('POST', '/api/v1/flags/osv', {}, '{}'), { status: 401 }, 'unsigned first');
  const res = await fetch(`${s.url}/api/v1/flags/osv`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', 'x-hub-signature-256': sign('x') },
    body: 'x',
  });
  t.equal(res.status, 415);
});

t.test('gate refuses only where a security profile is on; version_range * covers every version', async (t) => {
  const s = await setup(t);
  await s.push([
    flag({ registry: 'npm', effect: 'gate', external_id: 'G1' }),
    flag({ registry: 'secure', effect: 'gate', external_id: 'G2' }),
  ]);
  t.equal(
    (await s.download('npm', 'hubdemo', '1.0.0')).status,
    200,
    'gate without a security profile: reported, not refused',
  );
  t.equal((await s.download('secure', 'hubdemo', '1.0.0')).status, 403, 'gate with a security profile: refused');
  await s.push([
    flag({
      registry: 'npm',
      package_name: 'hubdep',
      version: undefined,
      version_range: '*',
      effect: 'hard_block',
      external_id: 'ALL',
    }),
  ]);
  t.equal((await s.download('npm', 'hubdep', '1.0.0')).status, 403);
  const packument = await fetch(`${s.url}/proxy/npm/hubdep`, {
    headers: { authorization: `Bearer ${s.alice}`, accept: 'application/json' },
  });
  t.equal(packument.status, 403, 'a * flag refuses the name itself');
  t.match(await packument.json(), { error: { message: /every version of hubdep/ } });
  await s.push([flag({ registry: 'npm', effect: 'warn', external_id: 'W1', version: '1.1.0' })]);
  t.equal((await s.download('npm', 'hubdemo', '1.1.0')).status, 200, 'warn never refuses');
});

t.test(
  'version_range in npm syntax: refuses the versions it admits, serves the rest and the listing, exposes who fetched them',
  async (t) => {
    const s = await setup(t);
    await s.download('npm', 'hubdemo', '1.0.0');
    await s.download('npm', 'hubdemo', '1.1.0');
    await s.hub.audit.flush();
    await new Promise((r) => setTimeout(r, 5));
    const pushed = await s.push([
      flag({ external_id: 'RANGE-1', version: undefined, version_range: ' >=1.0.0 <1.1.0 ' }),
    ]);
    t.match(
      pushed.json,
      { accepted: 1, rejected: 0, flags: [{ external_id: 'RANGE-1', version: null, version_range: '>=1.0.0 <1.1.0' }] },
      'stored trimmed',
    );
    const refused = await s.download('npm', 'hubdemo', '1.0.0');
    t.equal(refused.status, 403, 'a version inside the range is refused, cached or not');
    t.match(refused.body, {
      error: {
        code: 'package_blocked',
        message:
          'hubdemo 1.0.0 (in >=1.0.0 <1.1.0) is flagged malware (hard_block) by flag source osv, RANGE-1: steals tokens',
      },
    });
    t.equal((await s.download('npm', 'hubdemo', '1.1.0')).status, 200, 'a version outside it is served');
    const packument = await fetch(`${s.url}/proxy/npm/hubdemo`, {
      headers: { authorization: `Bearer ${s.alice}`, accept: 'application/json' },
    });
    t.equal(packument.status, 200, 'the listing is served: it holds versions outside the range');
    await packument.arrayBuffer();
    await s.push([flag({ external_id: 'RANGE-1', version: undefined, version_range: '^1.1.0' })]);
    t.equal(
      (await s.download('npm', 'hubdemo', '1.0.0')).status,
      200,
      'a re-pushed range replaces the old one at once',
    );
    t.equal((await s.download('npm', 'hubdemo', '1.1.0')).status, 403);
    await s.hub.audit.flush();
    const rows = JSON.parse((await s.api('/api/v1/admin/exposure')).text).rows;
    t.match(
      rows,
      [
        {
          consumer: 'alice',
          version: '1.1.0',
          exposure: 'direct',
          external_id: 'RANGE-1',
          fetches_before_flag: 1,
          fetches_after_flag: 1,
        },
      ],
      'exposure counts fetches of the versions in the range only',
    );
    t.equal(rows.length, 1);
  },
);

t.test('exposure coverage: window_truncated_at when audit-log retention cut into the asked window', async (t) => {
  const s = await setup(t, undefined, { audit_log: { retention_days: 30 } });
  const all = JSON.parse((await s.api('/api/v1/admin/exposure')).text).coverage;
  const cutoff = Date.parse(all.window_truncated_at);
  t.ok(
    Math.abs(cutoff - (Date.now() - 30 * 86_400_000)) < 3_600_000,
    'all time reaches past retention: fetches before 30 days ago are gone',
  );
  t.ok(
    JSON.parse((await s.api('/api/v1/admin/exposure?from=2000-01-01')).text).coverage.window_truncated_at,
    'a window from 2000 too',
  );
  const recent = new Date(Date.now() - 86_400_000).toISOString();
  t.equal(
    JSON.parse((await s.api(`/api/v1/admin/exposure?from=${encodeURIComponent(recent)}`)).text).coverage
      .window_truncated_at,
    null,
    'a window inside retention is whole',
  );
});

t.test(
  'exposure CSV export pages through the flags (keyset on id): every flag past the first page is in it, once',
  async (t) => {
    const s = await setup(t);
    await s.download('npm', 'hubdemo', '1.0.0');
    await s.hub.audit.flush();
    const ids = Array.from({ length: 250 }, (_, i) => `BULK-${String(i).padStart(3, '0')}`);
    t.match((await s.push(ids.map((external_id) => flag({ external_id, effect: 'warn' })))).json, { accepted: 250 });
    const csv = await s.api('/api/v1/admin/exposure/export?format=csv');
    t.equal(csv.status, 200);
    const records = parseCsv(csv.text)
      .slice(1)
      .filter((r) => r.length > 1);
    t.same(
      records.map((r) => r[9]),
      ids,
      'one row per flag, in id order, none twice',
    );
    t.equal(
      JSON.parse((await s.api('/api/v1/admin/exposure')).text).rows.length,
      250,
      'the JSON report reads the same pages',
    );
  },
);

t.test('exposure: who fetched a flagged version, before and after the flag, as JSON and CSV', async (t) => {
  const s = await setup(t);
  const bob = await s.token('bob', { roles: ['reader'] });
  await s.download('npm', 'hubdemo', '1.0.0');
  await s.download('npm', 'hubdemo', '1.0.0');
  await s.download('npm', 'hubdemo', '1.0.0', bob);
  await s.download('npm', 'hubdemo', '1.1.0', bob);
  await s.hub.audit.flush();
  await new Promise((r) => setTimeout(r, 5)); // the flag is raised strictly after those fetches
  await s.push([flag({ effect: 'warn' })]);
  await s.download('npm', 'hubdemo', '1.0.0', bob);
  await s.hub.audit.flush();

  const report = JSON.parse((await s.api('/api/v1/admin/exposure')).text);
  const byUser = Object.fromEntries(report.rows.map((r: any) => [r.consumer, r]));
  t.match(byUser.alice, {
    user_id: 'alice',
    ip_addresses: '127.0.0.1',
    registry: 'npm',
    package_name: 'hubdemo',
    version: '1.0.0',
    exposure: 'direct',
    via: null,
    source: 'osv',
    external_id: 'GHSA-1',
    effect: 'warn',
    flag_state: 'active',
    fetches_before_flag: 2,
    fetches_after_flag: 0,
  });
  t.match(byUser.bob, { fetches_before_flag: 1, fetches_after_flag: 1 });
  t.equal(report.rows.length, 2, 'hubdemo 1.1.0 is not flagged');
  t.match(report.coverage, {
    knows: /only the flags sources pushed to it and the fetches made through hub/,
    window_truncated_at: null,
    registries_with_sbom: 2,
    registries: [
      { name: 'npm', flagged: true, flags_live: 1 },
      { name: 'secure', flagged: false, flags_live: 0 },
    ],
    analysis: /never run/,
    sources: [
      { name: 'osv', pushed: true, flags: 1, live: 1, lifted: 0 },
      { name: 'quiet', pushed: false, flags: 0, live: 0, lifted: 0, last_push_at: null },
    ],
  });

  t.same(
    JSON.parse((await s.api('/api/v1/admin/exposure?min_effect=gate')).text).rows,
    [],
    'min_effect=gate leaves out a warn flag',
  );
  t.equal(JSON.parse((await s.api('/api/v1/admin/exposure?min_effect=warn&when=before-flag')).text).rows.length, 2);
  t.same(
    JSON.parse((await s.api('/api/v1/admin/exposure?when=after-flag')).text).rows.map((r: any) => r.consumer),
    ['bob'],
  );
  t.same(JSON.parse((await s.api('/api/v1/admin/exposure?source=quiet')).text).rows, []);
  t.same(
    JSON.parse((await s.api('/api/v1/admin/exposure?from=2999-01-01')).text).rows,
    [],
    'from limits the fetches counted',
  );
  t.equal((await s.api('/api/v1/admin/exposure?min_effect=huge')).status, 400);
  t.equal((await s.api('/api/v1/admin/exposure?when=sometimes')).status, 400);

  await s.lift('GHSA-1');
  const afterLift = JSON.parse((await s.api('/api/v1/admin/exposure')).text);
  t.equal(afterLift.rows.length, 2, 'a tombstone still answers');
  t.match(
    afterLift.coverage,
    { registries: [{ name: 'npm', flagged: false }], sources: [{ name: 'osv', flags: 1, live: 0, lifted: 1 }] },
    'coverage counts the lifted flag as lifted',
  );

  const csv = await s.api('/api/v1/admin/exposure/export?format=csv');
  t.equal(csv.status, 200);
  const records = parseCsv(csv.text);
  t.same(records[0], [
    'consumer',
    'user_id',
    'ip_addresses',
    'registry',
    'package_name',
    'version',
    'exposure',
    'via',
    'source',
    'external_id',
    'kind',
    'effect',
    'flag_state',
    'flag_raised_at',
    'fetches_before_flag',
    'fetches_after_flag',
    'first_fetch_at',
    'last_fetch_at',
    'depth',
    'fetched_package',
    'fetched_version',
    'certain',
    'token_ids',
    'waived',
  ]);
  const alice = records.find((r) => r[0] === 'alice')!;
  t.same(
    [alice[5], alice[6], alice[7], alice[12], alice[14], alice[15]],
    ['1.0.0', 'direct', '', 'tombstone', '2', '0'],
  );
  t.equal((await s.api('/api/v1/admin/exposure/export?format=xml')).status, 400);
});

t.test('dependency analysis: who fetched a dependent of a flagged version', async (t) => {
  const s = await setup(t);
  const bob = await s.token('bob', { roles: ['reader'] });
  await s.download('npm', 'hubdemo', '1.1.0'); // hubdemo 1.1.0 depends on hubdep
  await s.download('npm', '@hubtest/scoped', '1.0.0', bob); // so does this
  await s.hub.artifacts.idle();
  await s.hub.audit.flush();
  await s.push([flag({ external_id: 'DEP-1', package_name: 'hubdep', version: '1.0.0', effect: 'warn' })]);
  t.same(
    JSON.parse((await s.api('/api/v1/admin/exposure')).text).rows,
    [],
    'before analysis: nobody fetched hubdep itself',
  );

  const res = await fetch(`${s.url}/api/v1/admin/exposure/analyse`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.adminToken}`, 'content-type': 'application/json' },
    body: '{"registry":"npm"}',
  });
  const analysed = (await res.json()) as any;
  t.match(analysed, { analyses: [{ registry: 'npm', artifacts: 2, analysed: 2, failed: 0 }] });
  const again = (await (
    await fetch(`${s.url}/api/v1/admin/exposure/analyse`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.adminToken}`, 'content-type': 'application/json' },
      body: '{}',
    })
  ).json()) as any;
  t.match(
    again.analyses.find((a: any) => a.registry === 'npm'),
    { artifacts: 2, analysed: 0 },
    'incremental: nothing read twice',
  );

  const report = JSON.parse((await s.api('/api/v1/admin/exposure')).text);
  const byUser = Object.fromEntries(report.rows.map((r: any) => [r.consumer, r]));
  t.match(byUser.alice, {
    package_name: 'hubdep',
    version: '1.0.0',
    exposure: 'dependent',
    via: 'hubdemo@1.1.0 -> hubdep@1.0.0',
    depth: 1,
    fetched_package: 'hubdemo',
    fetched_version: '1.1.0',
    certain: true,
    waived: null,
    external_id: 'DEP-1',
    fetches_before_flag: 1,
  });
  t.match(byUser.bob, { exposure: 'dependent', via: '@hubtest/scoped@1.0.0 -> hubdep@1.0.0' });
  t.equal(report.rows.length, 2);
  t.match(
    report.coverage.registries.find((r: any) => r.name === 'npm'),
    { sbom: true, artifacts_analysed: 2 },
  );
  t.ok(report.coverage.registries.find((r: any) => r.name === 'npm').analysed_at, 'when analysis last ran');
  t.match(report.coverage.analysis, /ranges are evaluated/);

  // The dependents' declared range (^1.0.0) is evaluated: a flag on versions it does not admit exposes nobody.
  await s.push([
    flag({ external_id: 'DEP-2', package_name: 'hubdep', version: '2.0.1', effect: 'warn' }),
    flag({
      external_id: 'DEP-3',
      package_name: 'hubdep',
      version: undefined,
      version_range: '>=0.1.0 <1.0.0',
      effect: 'warn',
    }),
  ]);
  const rows = JSON.parse((await s.api('/api/v1/admin/exposure')).text).rows;
  t.same(
    rows.filter((r: any) => r.external_id === 'DEP-2'),
    [],
    '^1.0.0 does not pull 2.0.1',
  );
  t.same(
    rows
      .filter((r: any) => r.external_id === 'DEP-3')
      .map((r: any) => r.via)
      .sort(),
    [
      '@hubtest/scoped@1.0.0 -> hubdep ^1.0.0 (may pull a flagged version)',
      'hubdemo@1.1.0 -> hubdep ^1.0.0 (may pull a flagged version)',
    ],
    'a range flag with no version of it fetched through hub: hub cannot tell, and says so',
  );

  await s.hub.artifacts.purge('npm', 'hubdemo', '1.1.0');
  await fetch(`${s.url}/api/v1/admin/exposure/analyse`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.adminToken}`, 'content-type': 'application/json' },
    body: '{}',
  });
  t.same(
    JSON.parse((await s.api('/api/v1/admin/exposure?source=osv')).text)
      .rows.filter((r: any) => r.external_id === 'DEP-1')
      .map((r: any) => r.consumer),
    ['bob'],
    'an artifact no longer held is forgotten',
  );
});

/** The flags tables and the exposure queries (sums, upserts) on SQLite and, with HUB_TEST_MYSQL_URL, on MariaDB. */
const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);
for (const tier of tiers) {
  t.test(`${tier.name}: flag, refuse, expose (direct and dependent), lift`, async (t) => {
    const s = await setup(t, await tier.database(t, t.testdir()));
    await s.download('npm', 'hubdemo', '1.1.0');
    await s.download('npm', 'hubdep', '1.0.0');
    await s.hub.artifacts.idle();
    await s.hub.audit.flush();
    await new Promise((r) => setTimeout(r, 5));
    t.equal((await s.push([flag({ external_id: 'X', package_name: 'hubdep', version: '1.0.0' })])).status, 200);
    t.equal(
      (await s.push([flag({ external_id: 'X', package_name: 'hubdep', version: '1.0.0', summary: 'again' })])).status,
      200,
      're-sent: an update',
    );
    t.equal((await s.download('npm', 'hubdep', '1.0.0')).status, 403);
    const analyse = await fetch(`${s.url}/api/v1/admin/exposure/analyse`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.adminToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    t.equal(analyse.status, 200);
    const rows = JSON.parse((await s.api('/api/v1/admin/exposure')).text).rows as any[];
    t.same(rows.map((r) => [r.consumer, r.exposure, r.fetches_before_flag, r.fetches_after_flag]).sort(), [
      ['alice', 'dependent', 1, 0],
      ['alice', 'direct', 1, 0],
    ]);
    t.equal(typeof rows[0].fetches_before_flag, 'number', 'numbers are numbers on every database');
    t.match(JSON.parse((await s.api('/api/v1/admin/flags')).text).flags, [
      { external_id: 'X', summary: 'again', state: 'active' },
    ]);
    t.equal((await s.lift('X')).status, 200);
    t.equal((await s.download('npm', 'hubdep', '1.0.0')).status, 200);
  });
}

for (const tier of tiers) {
  t.test(
    `${tier.name}: signed requests cannot be replayed (timestamp, delivery id, signed order of raise and lift)`,
    async (t) => {
      // Not t.testdir(): each setup() takes that folder anew, and both replicas must share this database.
      const dbDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-flags-replay-'));
      t.teardown(() => fs.rmSync(dbDir, { recursive: true, force: true }));
      const db = await tier.database(t, dbDir);
      const s = await setup(t, db);
      const other = await setup(t, db); // a second replica on the same database
      const refused = { status: 401, json: { error: { code: 'invalid_signature' } } };

      const raise = await s.push([flag()]);
      t.equal(raise.status, 200);
      t.match(
        await s.send('POST', '/api/v1/flags/osv', raise.headers, JSON.stringify({ flags: [flag()] })),
        refused,
        'the same delivery again',
      );
      t.match(
        await other.send('POST', '/api/v1/flags/osv', raise.headers, JSON.stringify({ flags: [flag()] })),
        refused,
        'also at another replica',
      );

      const lift = await s.lift('GHSA-1');
      t.equal(lift.status, 200);
      t.equal((await s.push([flag()])).status, 200, 'the source raises it again');
      t.equal((await s.download('npm', 'hubdemo', '1.0.0')).status, 403);
      t.match(
        await s.send('DELETE', '/api/v1/flags/osv/GHSA-1', lift.headers),
        refused,
        'the captured lift, replayed: refused',
      );
      t.equal((await s.download('npm', 'hubdemo', '1.0.0')).status, 403, 'and the flag holds');

      const now = Math.floor(Date.now() / 1000);
      const early = await s.lift('GHSA-1', { timestamp: now - 60 });
      t.match(
        early,
        { status: 409, json: { error: { code: 'conflict' } } },
        'a lift signed before the raise does not lift it',
      );
      t.equal((await s.lift('GHSA-1', { timestamp: now + 1 })).status, 200, 'a later lift does');
      const stale = await s.push([flag()], { timestamp: now - 30 });
      t.equal(stale.status, 200);
      t.match(
        stale.json,
        { accepted: 0, skipped: [{ index: 0, external_id: 'GHSA-1' }] },
        'a raise signed before the lift is not revived',
      );
      t.equal((await s.download('npm', 'hubdemo', '1.0.0')).status, 200, 'the flag stays lifted');

      // Just outside the ±300 s window, with room for a slow machine between reading the clock and the check.
      for (const offset of [-310, 310])
        t.match(
          await s.push([flag({ external_id: 'GHSA-9' })], { timestamp: Math.floor(Date.now() / 1000) + offset }),
          refused,
          `signed at ${offset}s`,
        );
      t.match(
        await s.push([flag({ external_id: 'GHSA-9' })], { spec: true }),
        refused,
        'no timestamp and delivery: refused for a source without allow_unsigned_time',
      );
      t.match(
        await s.push([flag({ external_id: 'GHSA-9' })], { delivery: 'short' }),
        refused,
        'a malformed delivery id',
      );
      t.equal(
        (await s.push([flag({ external_id: 'GHSA-9' })], { source: 'legacy', spec: true })).status,
        200,
        'allow_unsigned_time: the base signature alone is accepted',
      );
      t.equal((await s.lift('GHSA-9', { source: 'legacy', spec: true })).status, 200);
      t.same(JSON.parse((await s.api('/api/v1/admin/flags')).text).flags, [], 'nothing else was stored');
    },
  );
}

for (const tier of tiers) {
  t.test(`${tier.name}: a flag raised or lifted on one replica holds on the other, without a restart`, async (t) => {
    const dbDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-flags-replicas-'));
    t.teardown(() => fs.rmSync(dbDir, { recursive: true, force: true }));
    const db = await tier.database(t, dbDir);
    const [a, b] = [await setup(t, db), await setup(t, db)];
    for (const registry of ['npm', 'secure'])
      t.equal(
        (await b.download(registry, 'hubdemo', '1.0.0')).status,
        200,
        `${registry}: replica B serves (and remembers) the version`,
      );
    /** Milliseconds until replica B answers `status` for both registries, or Infinity after 5 s. */
    const untilB = async (status: number) => {
      const from = Date.now();
      while (Date.now() - from < 5_000) {
        const answers = await Promise.all(['npm', 'secure'].map((r) => b.download(r, 'hubdemo', '1.0.0', b.alice)));
        if (answers.every((x) => x.status === status)) return Date.now() - from;
        await new Promise((r) => setTimeout(r, 50));
      }
      return Infinity;
    };
    t.equal(
      (
        await a.push([
          flag({ external_id: 'GHSA-R', registry: 'npm' }),
          flag({ external_id: 'GHSA-S', registry: 'secure' }),
        ])
      ).status,
      200,
    );
    const raised = await untilB(403);
    // The memo lives POLICY_MEMO_MS (1 s); the bound here only tells "soon" from "never" on a loaded machine.
    t.ok(raised < Infinity, `replica B refuses without a restart (after ${raised} ms)`);
    t.equal((await a.lift('GHSA-R')).status, 200);
    t.equal((await a.lift('GHSA-S')).status, 200);
    const lifted = await untilB(200);
    t.ok(lifted < Infinity, `replica B serves again after the lift (after ${lifted} ms)`);
  });
}
