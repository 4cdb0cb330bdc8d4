/**
 * hub upstream sweep|recheck|list|status, hub events and hub health against a real hub (@hub/admin,
 * @hub/audit, npm over a writable copy of the npm fixture upstream), in-process through main(): a version
 * unpublished upstream goes missing, then disappeared, shows in the list, the status, the events and
 * the health card, and a recheck after it is republished clears it.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import admin from '@hub/admin';
import audit from '@hub/audit';
import npm from '@hub/kind-npm';
import { npmFixtureHandler, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { closedPort, expectUsageErrors, json, lines, runHub } from './run-hub.js';
import publishing from '@hub/publishing';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));

// A writable copy of the fixture registry (hubdep 1.0.0, hubdemo 1.0.0 and 1.1.0, @hubtest/scoped 1.0.0).
const root = mkdtempSync(join(tmpdir(), 'hub-cli-upstream-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
cpSync(NPM_FIXTURES, root, { recursive: true });
const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(root) });
t.teardown(() => upstream.close());
const s = await startTestHub({
  dir: t.testdir(),
  plugins: [npm, admin, audit, publishing],
  registries: [
    { name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url },
    // Never audited, and its own policy differs from the hub's: the override badge.
    { name: 'mine', type: 'npm', mode: 'local', on_confirmed: 'block' },
  ],
  config: { upstream_audit: { confirm_after: 2, confirm_min_age_secs: 0, outage_ratio: 0.5, min_probed: 2 } },
});
t.teardown(() => s.close());

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runHub(args, { HUB_URL: s.url, HUB_TOKEN: s.adminToken, ...env });
const packument = (name: string) => join(root, `${name.replace('/', '%2f')}.json.tmpl`);
/** Removes a version from the upstream packument (the tarball stays, as on a real registry). */
function unpublish(name: string, version: string): void {
  const doc = JSON.parse(readFileSync(packument(name), 'utf8')) as { versions: Record<string, unknown> };
  delete doc.versions[version];
  writeFileSync(packument(name), JSON.stringify(doc));
}
const republish = (name: string) =>
  writeFileSync(packument(name), readFileSync(join(NPM_FIXTURES, `${name.replace('/', '%2f')}.json.tmpl`), 'utf8'));

const REFUSED = /\(HTTP 403, forbidden, request_id \S+\)/;
const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';

// The hub holds every fixture version: 4 versions of 3 packages.
for (const [n, v] of [
  ['hubdep', '1.0.0'],
  ['hubdemo', '1.0.0'],
  ['hubdemo', '1.1.0'],
  ['@hubtest/scoped', '1.0.0'],
] as const) {
  const res = await fetch(`${s.url}/proxy/npm/${n}/${v}/tarball`, {
    headers: { authorization: `Bearer ${s.adminToken}` },
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`fetching ${n}@${v} through hub answered ${res.status}`);
}
await s.hub.artifacts.idle();

t.test('upstream sweep: one line per registry; a void sweep exits 1', async (t) => {
  upstream.down();
  const down = await cli(['upstream', 'sweep', '--registry', 'npm']);
  upstream.up();
  t.equal(down.code, 1, 'a void sweep is a failed audit');
  t.match(down.stdout, /^npm: void, 3 probed, 0 answered, 0 missing, 0 disappeared, 0 reappeared: nothing recorded/);
  t.equal(lines(down.stdout).length, 1, 'only the registry asked for');

  const all = await cli(['upstream', 'sweep']);
  t.equal(all.code, 0, all.stderr);
  t.equal(
    all.stdout,
    'npm: ok, 3 probed, 3 answered, 0 missing, 0 disappeared, 0 reappeared\nmine: skipped (local registries have no upstream)\n',
    'ok, and skipped with the reason',
  );

  unpublish('hubdemo', '1.0.0');
  const first = await cli(['upstream', 'sweep', '--registry', 'npm']);
  t.equal(first.code, 0, first.stderr);
  t.equal(
    first.stdout,
    'npm: ok, 3 probed, 3 answered, 1 missing, 0 disappeared, 0 reappeared\n',
    'seen once: missing',
  );
  const second = await cli(['upstream', 'sweep', '--registry', 'npm', '--json']);
  t.equal(second.code, 0, second.stderr);
  t.same(
    json(second),
    {
      sweeps: [{ registry: 'npm', outcome: 'ok', probed: 3, conclusive: 3, missing: 1, disappeared: 1, reappeared: 0 }],
    },
    '--json: the answer as is; confirmed after two sweeps',
  );
});

t.test('upstream list: a table with the page and total on standard error', async (t) => {
  const list = await cli(['upstream', 'list']);
  t.equal(list.code, 0, list.stderr);
  const [header, row, ...rest] = lines(list.stdout);
  t.match(
    header,
    /^REGISTRY\s+PACKAGE\s+VERSION\s+STATE\s+MISSES\s+FIRST_MISSED\s+CONFIRMED\s+LAST_CHECKED\s+POLICY\s+RUNG\s+DETAIL$/,
  );
  t.match(
    row,
    new RegExp(
      `^npm\\s+hubdemo\\s+1\\.0\\.0\\s+disappeared\\s+2\\s+${TIME}\\s+${TIME}\\s+${TIME}\\s+audit\\s+listing\\s`,
    ),
  );
  t.same(rest, [], 'one row');
  t.equal(list.stderr, 'page 1 of 1 (total 1)\n');

  const listed = json(await cli(['upstream', 'list', '--state', 'disappeared', '--registry', 'npm', '--json']));
  t.match(listed, {
    rows: [
      {
        registry: 'npm',
        package_name: 'hubdemo',
        version: '1.0.0',
        state: 'disappeared',
        misses: 2,
        policy: 'audit',
        rung: 'listing',
      },
    ],
    page: 1,
    per_page: 50,
    total: 1,
  });

  const missing = await cli(['upstream', 'list', '--state', 'missing']);
  t.equal(missing.code, 0, missing.stderr);
  t.equal(missing.stdout, '', 'no table');
  t.equal(missing.stderr, 'no missing versions\n', '--state is passed on');

  const beyond = await cli(['upstream', 'list', '--page', '2', '--per-page', '1']);
  t.equal(beyond.code, 0, beyond.stderr);
  t.equal(beyond.stdout, '');
  t.equal(beyond.stderr, 'no rows on this page: page 2 of 1 (total 1)\n');

  const unknown = await cli(['upstream', 'list', '--registry', 'nope']);
  t.equal(unknown.code, 1, 'an unknown registry is refused');
  t.match(unknown.stderr, /\(HTTP 404, not_found, request_id \S+\)/);
});

t.test('upstream status: policy, audited, held versions, last sweep and the rows', async (t) => {
  const status = await cli(['upstream', 'status', '--registry', 'npm', '--package', 'hubdemo']);
  t.equal(status.code, 0, status.stderr);
  const out = lines(status.stdout);
  t.same(out.slice(0, 4), [
    'package:        npm hubdemo',
    'policy:         audit',
    'audited:        yes',
    'held versions:  1.0.0, 1.1.0',
  ]);
  t.match(out[4], new RegExp(`^last sweep:     ${TIME} \\(ok\\)$`));
  t.match(out[5], /^VERSION\s+STATE\s+MISSES\s+FIRST_MISSED\s+CONFIRMED\s+LAST_CHECKED\s+POLICY\s+RUNG\s+DETAIL$/);
  t.match(out[6], /^1\.0\.0\s+disappeared\s+2\s/);
  t.equal(out.length, 7);

  const scoped = await cli(['upstream', 'status', 'npm', '@hubtest/scoped', '--json']);
  t.equal(scoped.code, 0, scoped.stderr);
  t.match(
    json(scoped),
    {
      registry: 'npm',
      package_name: '@hubtest/scoped',
      audit_policy: 'audit',
      policy: 'audit',
      overridden: false,
      audited: true,
      held_versions: ['1.0.0'],
      rows: [],
      last_sweep: { outcome: 'ok' },
    },
    'a name with a slash is one path segment',
  );

  const local = await cli(['upstream', 'status', 'mine', 'anything']);
  t.equal(local.code, 0, local.stderr);
  t.match(local.stdout, /^policy: {9}block \(overrides the hub's audit\)$/m, 'the override badge');
  t.match(local.stdout, /^audited: {8}no: local registries have no upstream$/m);
  t.match(local.stdout, /^held versions: {2}none$/m);
  t.match(local.stdout, /^last sweep: {5}never$/m);
  t.match(local.stdout, /^no missing or disappeared versions$/m);
});

t.test('events: newest first, filtered by type, one page with the cursor of the next', async (t) => {
  const disappeared = await cli(['events', '--type', 'package_disappeared_upstream']);
  t.equal(disappeared.code, 0, disappeared.stderr);
  const [header, ...rows] = lines(disappeared.stdout);
  t.match(header, /^TIME\s+TYPE\s+REGISTRY\s+DATA$/);
  t.equal(rows.length, 1, 'one disappearance');
  t.match(
    rows[0],
    new RegExp(
      `^${TIME}\\s+package_disappeared_upstream\\s+npm\\s+\\{.*"package_name":"hubdemo","version":"1\\.0\\.0".*\\}$`,
    ),
    'the data as compact JSON',
  );
  t.equal(disappeared.stderr, '');

  const all = json(await cli(['events', '--json']));
  t.same(
    all.events.map((e: any) => e.type),
    ['package_disappeared_upstream', 'upstream_unreachable'],
    'newest first: the confirmation after the void sweep',
  );
  t.equal(all.next_cursor, null);

  const one = await cli(['events', '--limit', '1']);
  t.equal(one.code, 0, one.stderr);
  t.equal(lines(one.stdout).length, 2, 'a header and one event');
  const cursor = /^more events follow: add --cursor (\d+)\n$/.exec(one.stderr)?.[1];
  t.ok(cursor, 'the next cursor on standard error');
  const next = await cli(['events', '--limit', '1', '--cursor', cursor!]);
  t.match(lines(next.stdout)[1], /\supstream_unreachable\s+npm\s/, 'the next page');
  t.equal(next.stderr, '', 'the last page');

  const none = await cli(['events', '--registry', 'mine']);
  t.equal(none.code, 0);
  t.equal(none.stdout, '');
  t.equal(none.stderr, 'no events\n');
});

t.test('health: per registry its cache and the audit, with the override badge', async (t) => {
  const health = await cli(['health']);
  t.equal(health.code, 0, health.stderr);
  const [first, auditLine, header, npmLine, mineLine, ...rest] = lines(health.stdout);
  t.match(first, /^hub \d+\.\d+\.\d+\S*: status ok, database ok$/);
  t.equal(auditLine, 'upstream audit: policy audit, no scheduled sweeps (run hub upstream sweep)');
  t.match(header, /^NAME\s+TYPE\s+MODE\s+ARTIFACTS\s+BYTES\s+POLICY\s+MISSING\s+DISAPPEARED\s+LAST_SWEEP\s+AUDITED$/);
  t.match(
    npmLine,
    new RegExp(`^npm\\s+npm\\s+proxy\\s+4\\s+\\d+(\\.\\d)? (B|KiB)\\s+audit\\s+0\\s+1\\s+${TIME} \\(ok\\)\\s+yes$`),
  );
  t.match(
    mineLine,
    /^mine\s+npm\s+local\s+0\s+0 B\s+block \(overridden\)\s+0\s+0\s+never\s+no: local registries have no upstream$/,
  );
  t.same(rest, []);

  const j = json(await cli(['health', '--json']));
  t.match(j, {
    status: 'ok',
    database: 'ok',
    audit: { policy: 'audit', scheduled: false },
    registries: [
      {
        name: 'npm',
        cached: { artifacts: 4 },
        audit: {
          policy: 'audit',
          overridden: false,
          audited: true,
          missing: 0,
          disappeared: 1,
          last_sweep: { outcome: 'ok' },
        },
      },
      { name: 'mine', audit: { policy: 'block', overridden: true, audited: false } },
    ],
  });
});

t.test('upstream recheck: each answer, then what it cleared once the version is back', async (t) => {
  const still = await cli(['upstream', 'recheck', 'npm', 'hubdemo', '--version', '1.0.0']);
  t.equal(still.code, 0, still.stderr);
  t.match(
    still.stdout,
    /^npm hubdemo@1\.0\.0: absent \(rung listing[^)]*\)\nnothing cleared\nstill disappeared: npm hubdemo@1\.0\.0 \(2 misses\)\n$/,
  );

  republish('hubdemo');
  const back = await cli(['upstream', 'recheck', '--registry', 'npm', '--package', 'hubdemo']);
  t.equal(back.code, 0, back.stderr);
  const out = lines(back.stdout);
  t.same(
    out
      .slice(0, 2)
      .map((l) => l.replace(/ \(.*\)$/, ''))
      .sort(),
    ['npm hubdemo@1.0.0: present', 'npm hubdemo@1.1.0: present'],
    'every held version probed',
  );
  t.same(out.slice(2), ['cleared npm hubdemo@1.0.0'], 'the disappeared version is cleared, nothing is left');

  const list = await cli(['upstream', 'list']);
  t.equal(list.stdout, '');
  t.equal(list.stderr, 'no missing or disappeared versions\n');
  const reappeared = json(await cli(['events', '--type', 'package_reappeared_upstream', '--json']));
  t.match(reappeared.events, [
    { type: 'package_reappeared_upstream', registry: 'npm', data: { package_name: 'hubdemo', version: '1.0.0' } },
  ]);
  t.equal(reappeared.events.length, 1);

  const again = json(await cli(['upstream', 'recheck', 'npm', 'hubdemo', '--version', '1.0.0', '--json']));
  t.match(
    again,
    {
      registry: 'npm',
      package_name: 'hubdemo',
      probes: [{ version: '1.0.0', answer: 'present' }],
      cleared: [],
      rows: [],
    },
    '--json: the answer as is',
  );

  const notAudited = await cli(['upstream', 'recheck', 'mine', 'anything']);
  t.equal(notAudited.code, 1, 'a registry that is not audited is refused');
  t.match(
    notAudited.stderr,
    /^hub: mine is not audited: local registries have no upstream \(HTTP 400, bad_request, request_id \S+\)\n$/,
  );
});

t.test(
  'permissions: a reader is refused (exit 1) with the server message; an auditor reads but cannot sweep',
  async (t) => {
    const reader = await s.token('rita', { roles: ['reader'] });
    const auditor = await s.token('alex', { roles: ['auditor'] });
    for (const args of [
      ['upstream', 'list'],
      ['upstream', 'status', 'npm', 'hubdemo'],
      ['upstream', 'sweep'],
      ['upstream', 'recheck', 'npm', 'hubdemo'],
      ['events'],
      ['health'],
    ]) {
      const r = await cli(args, { HUB_TOKEN: reader });
      t.equal(r.code, 1, `${args.join(' ')}: exit 1`);
      t.match(r.stderr, REFUSED, `${args.join(' ')}: the 403 and its request_id`);
      t.equal(r.stdout, '');
    }
    t.equal((await cli(['upstream', 'list'], { HUB_TOKEN: auditor })).code, 0, 'system:read lists');
    t.equal((await cli(['health'], { HUB_TOKEN: auditor })).code, 0);
    const sweep = await cli(['upstream', 'sweep', '--json'], { HUB_TOKEN: auditor });
    t.equal(sweep.code, 1, 'sweeping needs system:write');
    t.match(json(sweep), { error: { code: 'forbidden' } }, '--json: the error body on standard output');
    t.match(sweep.stderr, REFUSED);
  },
);

t.test('bad usage exits 2, names the help, and sends nothing', async (t) => {
  // HUB_URL points at a closed port: had any of these sent a request, it would exit 1, not 2.
  const env = { HUB_URL: `http://127.0.0.1:${await closedPort()}`, HUB_TOKEN: 'x' };
  const cases: Array<[string[], RegExp, string]> = [
    [['upstream'], /upstream needs a sub-command: sweep, recheck, list, status/, 'upstream'],
    [['upstream', 'purge'], /unknown sub-command "upstream purge"/, 'upstream'],
    [['upstream', 'list', '--state', 'bogus'], /--state must be missing or disappeared, not "bogus"/, 'upstream list'],
    [['upstream', 'list', '--page', '0'], /--page must be a positive whole number/, 'upstream list'],
    [['upstream', 'list', '--per-page', 'all'], /--per-page must be a positive whole number/, 'upstream list'],
    [['upstream', 'list', 'npm'], /Unexpected argument 'npm'/, 'upstream list'],
    [['upstream', 'recheck', '--package', 'hubdemo'], /--registry is required/, 'upstream recheck'],
    [['upstream', 'recheck', 'npm'], /--package is required/, 'upstream recheck'],
    [['upstream', 'recheck', 'npm', 'hubdemo', '1.0.0'], /unexpected argument "1.0.0"/, 'upstream recheck'],
    [
      ['upstream', 'recheck', 'npm', 'hubdemo', '--registry', 'npm'],
      /either as --registry or as an argument/,
      'upstream recheck',
    ],
    [['upstream', 'status', '--registry', 'npm'], /--package is required/, 'upstream status'],
    [['upstream', 'sweep', '--registry'], /argument missing/, 'upstream sweep'],
    [['upstream', 'sweep', '--registry', ' '], /--registry needs a value/, 'upstream sweep'],
    [['events', '--type', 'Bad-Type'], /--type must be an event name/, 'events'],
    [['events', '--limit', '0'], /--limit must be a positive whole number/, 'events'],
    [['health', 'now'], /Unexpected argument 'now'/, 'health'],
    [['health', '--verbose'], /Unknown option '--verbose'/, 'health'],
  ];
  await expectUsageErrors(t, cases, env);
});

t.test('a health card whose status is not ok exits 1; without the audit there are no audit columns', async (t) => {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        status: 'degraded',
        version: '9.9.9',
        database: 'unreachable',
        registries: [
          { name: 'npm', type: 'npm', mode: 'proxy', upstream: 'http://u', cached: { artifacts: 3, bytes: 1536 } },
        ],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const r = await runHub(['health', '--url', url, '--token', 'x']);
  t.equal(r.code, 1, 'degraded is a failed check');
  t.equal(
    r.stdout,
    [
      'hub 9.9.9: status degraded, database unreachable',
      'NAME  TYPE  MODE   ARTIFACTS  BYTES',
      'npm   npm   proxy  3          1.5 KiB',
      '',
    ].join('\n'),
  );
  const j = await runHub(['health', '--url', url, '--token', 'x', '--json']);
  t.equal(j.code, 1, 'and with --json too');
  t.equal(json(j).status, 'degraded');
});
