/**
 * hub flags list and hub exposure against a real hub (@hub/admin, @hub/flags, npm over the npm fixture
 * upstream), in-process through main(): users download a version, a flag source pushes signed flags,
 * the list, the exposure table, its JSON, its CSV export and the coverage summary show them; a signed
 * DELETE turns a flag into a tombstone that only --include-dead lists.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import admin from '@hub/admin';
import flagsPlugin from '@hub/flags';
import npm from '@hub/kind-npm';
import { npmFixtureHandler, signFlagRequest, startFixtureUpstream, startTestHub, parseCsv } from '@hub/testkit';
import { closedPort, expectUsageErrors, json, lines, runHub } from './run-hub.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));
const SECRET = 'osv-shared-secret';

const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
t.teardown(() => upstream.close());
const s = await startTestHub({
  dir: t.testdir(),
  plugins: [npm, admin, flagsPlugin],
  registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
  config: {
    flag_sources: [
      { name: 'osv', secret: SECRET },
      { name: 'quiet', secret: 'other-secret' },
    ] as never,
  },
});
t.teardown(() => s.close());

const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runHub(args, { HUB_URL: s.url, HUB_TOKEN: s.adminToken, ...env });
const TIME = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';

async function download(name: string, version: string, token: string): Promise<void> {
  const res = await fetch(`${s.url}/proxy/npm/${name}/${version}/tarball`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`fetching ${name}@${version} answered ${res.status}`);
}
/** POSTs flags signed as the flag source osv. */
async function push(flagList: unknown[]): Promise<void> {
  const body = JSON.stringify({ flags: flagList });
  const res = await fetch(`${s.url}/api/v1/flags/osv`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...signFlagRequest({ secret: SECRET, method: 'POST', path: '/api/v1/flags/osv', body }),
    },
    body,
  });
  if (res.status !== 200) throw new Error(`push answered ${res.status}: ${await res.text()}`);
}
/** The signed DELETE that lifts a flag (a tombstone stays). */
async function lift(externalId: string): Promise<void> {
  const path = `/api/v1/flags/osv/${externalId}`;
  const res = await fetch(`${s.url}${path}`, {
    method: 'DELETE',
    headers: signFlagRequest({ secret: SECRET, method: 'DELETE', path }),
  });
  if (res.status !== 200) throw new Error(`lift answered ${res.status}: ${await res.text()}`);
}

// alice fetches hubdemo 1.0.0 twice and bob once; then the flags are raised; then bob fetches it again.
const alice = await s.token('alice', { roles: ['reader'] });
const bob = await s.token('bob', { roles: ['reader'] });
await download('hubdemo', '1.0.0', alice);
await download('hubdemo', '1.0.0', alice);
await download('hubdemo', '1.0.0', bob);
await download('hubdemo', '1.1.0', bob);
await s.hub.audit.flush();
await new Promise((r) => setTimeout(r, 5)); // the flags are raised strictly after those fetches
await push([
  {
    external_id: 'GHSA-warn-1',
    registry: 'npm',
    package_name: 'hubdemo',
    version: '1.0.0',
    kind: 'vulnerability',
    effect: 'warn',
    summary: 'prototype pollution',
  },
  {
    external_id: 'MAL-2',
    registry: 'npm',
    package_name: '@hubtest/scoped',
    version_range: '*',
    kind: 'malware',
    effect: 'hard_block',
    summary: 'typosquat',
  },
]);
await download('hubdemo', '1.0.0', bob);
await s.hub.audit.flush();

t.test('flags list: a table of the active flags; --json as the server sent it', async (t) => {
  const r = await cli(['flags', 'list']);
  t.equal(r.code, 0, r.stderr);
  const [header, warn, mal, ...rest] = lines(r.stdout);
  t.match(header, /^EXTERNAL_ID\s+SOURCE\s+COORDINATE\s+KIND\s+EFFECT\s+STATE\s+RAISED\s+LIFTED\s+SUMMARY$/);
  t.match(
    warn,
    new RegExp(
      `^GHSA-warn-1\\s+osv\\s+npm hubdemo@1\\.0\\.0\\s+vulnerability\\s+warn\\s+active\\s+${TIME}\\s+-\\s+prototype pollution$`,
    ),
  );
  t.match(
    mal,
    new RegExp(
      `^MAL-2\\s+osv\\s+npm @hubtest/scoped@\\*\\s+malware\\s+hard_block\\s+active\\s+${TIME}\\s+-\\s+typosquat$`,
    ),
    'a flag on every version shows @*',
  );
  t.same(rest, []);
  t.equal(r.stderr, '');

  const j = json(await cli(['flags', 'list', '--json']));
  t.match(j, {
    flags: [
      {
        source: 'osv',
        external_id: 'GHSA-warn-1',
        registry: 'npm',
        package_name: 'hubdemo',
        version: '1.0.0',
        state: 'active',
        lifted_at: null,
      },
      { external_id: 'MAL-2', version: null, version_range: '*' },
    ],
  });
  t.equal(j.flags.length, 2);

  const quiet = await cli(['flags', 'list', '--source', 'quiet']);
  t.equal(quiet.code, 0, quiet.stderr);
  t.equal(quiet.stdout, '');
  t.equal(quiet.stderr, 'no active flags (add --include-dead for lifted ones)\n', '--source is passed on');
  t.equal(json(await cli(['flags', 'list', '--registry', 'npm', '--json'])).flags.length, 2, '--registry is passed on');
});

t.test('exposure: one row per consumer, the coverage on standard error', async (t) => {
  const r = await cli(['exposure']);
  t.equal(r.code, 0, r.stderr);
  const [header, ...rows] = lines(r.stdout);
  // A hub with dependency analysis adds EXPOSURE (direct or dependent) and VIA.
  t.match(
    header,
    /^CONSUMER\s+IPS\s+COORDINATE\s+(EXPOSURE\s+)?(FETCHED\s+)?FLAG\s+KIND\s+EFFECT\s+FLAG_STATE\s+RAISED\s+BEFORE\s+AFTER\s+FIRST_FETCH\s+LAST_FETCH(\s+VIA)?$/,
  );
  t.equal(rows.length, 2, 'alice and bob; @hubtest/scoped was never fetched, hubdemo 1.1.0 is not flagged');
  const row = (who: string) => rows.find((l) => l.startsWith(`${who} `)) ?? '';
  t.match(
    row('alice'),
    new RegExp(
      `^alice\\s+127\\.0\\.0\\.1\\s+npm hubdemo@1\\.0\\.0\\s+(direct\\s+)?(npm hubdemo@1\\.0\\.0\\s+)?osv/GHSA-warn-1\\s+vulnerability\\s+warn\\s+active\\s+${TIME}\\s+2\\s+0\\s+${TIME}\\s+${TIME}(\\s+-)?$`,
    ),
  );
  t.match(
    row('bob'),
    /^bob\s+127\.0\.0\.1\s+npm hubdemo@1\.0\.0\s+(direct\s+)?(npm hubdemo@1\.0\.0\s+)?osv\/GHSA-warn-1\s.*\s1\s+1\s/,
    'one fetch before the flag, one after',
  );
  const cov = lines(r.stderr);
  t.equal(cov[0], 'coverage: 1 of 1 registries have an SBOM extractor (npm)');
  t.match(cov[1], /^dependency analysis: \S/, "the server's sentence on dependency analysis");
  t.match(cov.at(-1), new RegExp(`^flag sources: osv pushed 2 flags \\(last ${TIME}\\); quiet never pushed$`));

  const j = json(await cli(['exposure', '--json']));
  t.match(j, {
    coverage: {
      registries_with_sbom: 1,
      registries: [{ name: 'npm', type: 'npm', sbom: true, analysed_at: null }],
      sources: [
        { name: 'osv', pushed: true, flags: 2 },
        { name: 'quiet', pushed: false },
      ],
    },
  });
  t.match(
    j.rows.find((x: any) => x.consumer === 'alice'),
    {
      user_id: 'alice',
      ip_addresses: '127.0.0.1',
      registry: 'npm',
      package_name: 'hubdemo',
      version: '1.0.0',
      source: 'osv',
      external_id: 'GHSA-warn-1',
      kind: 'vulnerability',
      effect: 'warn',
      flag_state: 'active',
      fetches_before_flag: 2,
      fetches_after_flag: 0,
    },
  );

  const after = json(await cli(['exposure', '--when', 'after-flag', '--json']));
  t.same(
    after.rows.map((x: any) => x.consumer),
    ['bob'],
    '--when after-flag',
  );
  t.equal(json(await cli(['exposure', '--when', 'before-flag', '--min-effect', 'warn', '--json'])).rows.length, 2);
  const strong = await cli(['exposure', '--min-effect', 'gate']);
  t.equal(strong.code, 0, strong.stderr);
  t.equal(strong.stdout, '', 'a warn flag is weaker than gate');
  t.match(strong.stderr, /^no exposure rows match\ncoverage: /, 'the coverage still follows');
  for (const [args, n] of [
    [['--source', 'quiet'], 0],
    [['--registry', 'npm', '--package', 'hubdemo'], 2],
    [['--package', '@hubtest/scoped'], 0],
    [['--from', '2999-01-01'], 0],
    [['--from', '1h'], 2],
  ] as const)
    t.equal(json(await cli(['exposure', ...args, '--json'])).rows.length, n, `${args.join(' ')}: ${n} rows`);
});

t.test('exposure --jsonl --depth: one JSON row a line, each with its chain', async (t) => {
  const r = await cli(['exposure', '--jsonl', '--depth', '2']);
  t.equal(r.code, 0, r.stderr);
  const rows = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.same(rows.map((x) => x.consumer).sort(), ['alice', 'bob']);
  t.match(rows[0], {
    exposure: 'direct',
    depth: 0,
    waived: null,
    chain: [{ package_name: 'hubdemo', version: '1.0.0', range: null }],
  });
  t.equal(
    json(await cli(['exposure', '--depth', '1', '--json'])).coverage.depth,
    1,
    'the depth asked reaches the server',
  );
});

t.test('exposure --csv: streamed to standard output, or to --output FILE', async (t) => {
  const file = join(t.testdir(), 'exposure.csv');
  const r = await cli(['exposure', '--csv', '--output', file, '--when', 'before-flag']);
  t.equal(r.code, 0, r.stderr);
  t.equal(r.stdout, '');
  t.match(r.stderr, /^wrote \d+ bytes of CSV to .*exposure\.csv\n$/);
  const records = parseCsv(readFileSync(file, 'utf8'));
  const header = records[0]!;
  const COLUMNS = [
    'consumer',
    'user_id',
    'ip_addresses',
    'registry',
    'package_name',
    'version',
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
  ];
  t.same(
    header.filter((c) => COLUMNS.includes(c)),
    COLUMNS,
    'the header names every column, in order',
  );
  t.equal(records.length, 3, 'a header and two rows');
  const aliceRow = records.find((x) => x[0] === 'alice')!;
  const at = (name: string) => aliceRow[header.indexOf(name)];
  t.same(
    [
      'registry',
      'package_name',
      'version',
      'external_id',
      'flag_state',
      'fetches_before_flag',
      'fetches_after_flag',
    ].map(at),
    ['npm', 'hubdemo', '1.0.0', 'GHSA-warn-1', 'active', '2', '0'],
  );

  const j = await cli(['exposure', '--csv', '--output', file, '--json', '--when', 'after-flag']);
  t.equal(j.code, 0, j.stderr);
  t.same(json(j), { output: file, bytes: readFileSync(file).length }, '--json: what was written');
  t.same(
    parseCsv(readFileSync(file, 'utf8'))
      .slice(1)
      .map((x) => x[0]),
    ['bob'],
    'the filters reach the export',
  );

  const out = await cli(['exposure', '--csv']);
  t.equal(out.code, 0, out.stderr);
  const streamed = parseCsv(out.stdout);
  t.equal(streamed[0]![0], 'consumer');
  t.same(
    streamed
      .slice(1)
      .map((x) => x[0])
      .sort(),
    ['alice', 'bob'],
    'without --output: standard output',
  );
  t.equal(out.stderr, '');
});

t.test(
  'a signed DELETE makes a tombstone: gone from the list, shown with --include-dead, still in the exposure',
  async (t) => {
    await lift('GHSA-warn-1');
    const active = await cli(['flags', 'list']);
    t.equal(active.code, 0, active.stderr);
    t.same(
      lines(active.stdout)
        .slice(1)
        .map((l) => l.split(/\s+/)[0]),
      ['MAL-2'],
      'the lifted flag is hidden',
    );

    const dead = await cli(['flags', 'list', '--include-dead']);
    t.equal(dead.code, 0, dead.stderr);
    const lifted = lines(dead.stdout).find((l) => l.startsWith('GHSA-warn-1 '));
    t.match(
      lifted,
      new RegExp(
        `^GHSA-warn-1\\s+osv\\s+npm hubdemo@1\\.0\\.0\\s+vulnerability\\s+warn\\s+tombstone\\s+${TIME}\\s+${TIME}\\s+prototype pollution$`,
      ),
      'state tombstone, with the time it was lifted',
    );
    t.equal(lines(dead.stdout).length, 3);
    t.match(json(await cli(['flags', 'list', '--include-dead', '--json'])).flags, [
      { external_id: 'GHSA-warn-1', state: 'tombstone', lifted_at: new RegExp(`^${TIME}$`) },
      { external_id: 'MAL-2', state: 'active' },
    ]);

    const report = json(await cli(['exposure', '--json']));
    t.same(
      report.rows.map((x: any) => x.flag_state),
      ['tombstone', 'tombstone'],
      'a tombstone still answers',
    );
  },
);

t.test('permissions: a reader is refused (exit 1) with the server message', async (t) => {
  for (const args of [
    ['flags', 'list'],
    ['exposure'],
    ['exposure', '--csv'],
    ['exposure', '--csv', '--output', join(t.testdir(), 'x.csv')],
  ]) {
    const r = await cli(args, { HUB_TOKEN: alice });
    t.equal(r.code, 1, `${args.join(' ')}: exit 1`);
    t.match(r.stderr, /\(HTTP 403, forbidden, request_id \S+\)/, `${args.join(' ')}: the 403 and its request_id`);
    t.equal(r.stdout, '');
  }
  const j = await cli(['flags', 'list', '--json'], { HUB_TOKEN: alice });
  t.equal(j.code, 1);
  t.match(json(j), { error: { code: 'forbidden' } }, '--json: the error body on standard output');
});

t.test('bad usage exits 2, names the help, and sends nothing', async (t) => {
  // HUB_URL points at a closed port: had any of these sent a request, it would exit 1, not 2.
  const env = { HUB_URL: `http://127.0.0.1:${await closedPort()}`, HUB_TOKEN: 'x' };
  const cases: Array<[string[], RegExp, string]> = [
    [['flags'], /flags needs a sub-command: list/, 'flags'],
    [['flags', 'raise'], /unknown sub-command "flags raise"/, 'flags'],
    [['flags', 'list', '--include-dead=yes'], /--include-dead/, 'flags list'],
    [['flags', 'list', 'npm'], /Unexpected argument 'npm'/, 'flags list'],
    [['flags', 'list', '--source', ''], /--source needs a value/, 'flags list'],
    [
      ['exposure', '--min-effect', 'huge'],
      /--min-effect must be one of info, warn, gate, hard_block, not "huge"/,
      'exposure',
    ],
    [['exposure', '--when', 'sometimes'], /--when must be before-flag, after-flag or any, not "sometimes"/, 'exposure'],
    [['exposure', '--from', 'yesterday'], /--from must be a time/, 'exposure'],
    [['exposure', '--output', 'x.csv'], /--output needs --csv/, 'exposure'],
    [['exposure', '--csv', '--output', '/no/such/folder/x.csv'], /folder of --output/, 'exposure'],
    [['exposure', '--registry'], /argument missing/, 'exposure'],
    [['exposure', '--depth', '0'], /--depth must be a positive whole number, not "0"/, 'exposure'],
    [['exposure', '--csv', '--jsonl'], /--csv and --jsonl cannot be used together/, 'exposure'],
  ];
  await expectUsageErrors(t, cases, env);
});

t.test('exposure analyse: dependency analysis now, then the coverage says when it ran', async (t) => {
  const r = await cli(['exposure', 'analyse', '--registry', 'npm']);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /^npm: [1-9]\d* artifacts analysed \([1-9]\d* read now, 0 unreadable\)\n$/);
  const again = await cli(['exposure', 'analyse']);
  t.match(again.stdout, /^npm: [1-9]\d* artifacts analysed \(0 read now, 0 unreadable\)\n$/, 'incremental');
  const j = json(await cli(['exposure', 'analyse', '--json']));
  t.match(j, { analyses: [{ registry: 'npm', analysed: 0, failed: 0 }] });
  const cov = json(await cli(['exposure', '--json'])).coverage;
  t.match(cov.registries[0].analysed_at, new RegExp(`^${TIME}$`));
  const bad = await runHub(['exposure', 'analyse', 'npm'], {
    HUB_URL: `http://127.0.0.1:${await closedPort()}`,
    HUB_TOKEN: 'x',
  });
  t.equal(bad.code, 2);
  t.match(bad.stderr, "Run 'hub exposure analyse --help' for usage.");
  const reader = await s.token('ria', { roles: ['auditor'] });
  const refused = await cli(['exposure', 'analyse'], { HUB_TOKEN: reader });
  t.equal(refused.code, 1, 'system:read is not enough');
});
