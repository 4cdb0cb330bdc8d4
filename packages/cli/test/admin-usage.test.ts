/** The admin commands without a server: --help, bad usage (exit 2), an unreachable hub (exit 1). Issue 5, item 6. */
import t from 'tap';
import { duration, instant, ipOrCidr } from '../src/options.js';
import { closedPort, expectUsageErrors, runHub } from './run-hub.js';

/** Every admin command as typed, with the permission its help must name. */
const COMMANDS: Array<[string[], string]> = [
  [['audit-log'], 'system:read'],
  [['export-audit-log'], 'system:read'],
  [['ip-blocks', 'add'], 'system:write'],
  [['ip-blocks', 'remove'], 'system:write'],
  [['ip-blocks', 'list'], 'system:read'],
  [['token', 'create'], 'system:write'],
  [['token', 'revoke'], 'system:write'],
  [['users', 'create'], 'system:write'],
  [['users', 'block'], 'system:write'],
  [['users', 'unblock'], 'system:write'],
  [['users', 'show'], 'system:read'],
  [['users', 'list'], 'system:read'],
  [['block'], 'system:write'],
  [['unblock'], 'system:write'],
  [['blocks', 'list'], 'system:read'],
  [['packages', 'unlist'], 'system:write'],
  [['packages', 'relist'], 'system:write'],
  [['packages', 'unlisted'], 'system:read'],
  [['policies', 'list'], 'system:read'],
  [['policies', 'create'], 'system:write'],
  [['policies', 'delete'], 'system:write'],
  [['access-check'], 'system:read'],
  [['cache', 'purge'], 'system:write'],
  [['upstream', 'sweep'], 'system:write'],
  [['upstream', 'recheck'], 'system:write'],
  [['upstream', 'list'], 'system:read'],
  [['upstream', 'status'], 'system:read'],
  [['events'], 'system:read'],
  [['health'], 'system:read'],
  [['flags', 'list'], 'system:read'],
  [['exposure'], 'system:read'],
  [['exposure', 'analyse'], 'system:write'],
  [['check'], 'source:read'],
];

t.test('--help of every admin command: usage, the permission, an example, the connection options', async (t) => {
  const runs = await Promise.all(COMMANDS.map(([cmd]) => runHub([...cmd, '--help'])));
  COMMANDS.forEach(([cmd, permission], i) => {
    const r = runs[i]!;
    const name = cmd.join(' ');
    t.equal(r.code, 0, `${name} --help exits 0`);
    t.match(r.stdout, `Usage: hub ${name}`, `${name}: usage line`);
    t.match(r.stdout, `Needs permission ${permission}`, `${name}: names ${permission}`);
    t.match(r.stdout, /Examples?:\n {2}hub /, `${name}: an example`);
    t.match(r.stdout, /--url URL[\s\S]*--token TOKEN[\s\S]*--json/, `${name}: connection options`);
    t.match(r.stdout, /Exit status: 0/, `${name}: exit codes`);
    t.equal(r.stderr, '', `${name}: nothing on stderr`);
  });
  t.match(
    runs[COMMANDS.findIndex(([c]) => c[0] === 'access-check')]!.stdout,
    'Exit status: 0 allowed; 1 denied',
    'access-check explains its exit code',
  );
});

t.test('--help of each command group lists its sub-commands; hub --help lists the admin commands', async (t) => {
  for (const [group, subs] of [
    ['ip-blocks', ['add', 'remove', 'list']],
    ['token', ['create', 'revoke']],
    ['users', ['create', 'block', 'unblock', 'show', 'list']],
    ['blocks', ['list']],
    ['packages', ['unlist', 'relist', 'unlisted']],
    ['cache', ['purge']],
    ['policies', ['list', 'create', 'delete']],
    ['upstream', ['sweep', 'recheck', 'list', 'status']],
    ['flags', ['list']],
  ] as const) {
    const r = await runHub([group, '--help']);
    t.equal(r.code, 0, `${group} --help exits 0`);
    for (const sub of subs) t.match(r.stdout, new RegExp(`^ {2}${sub}\\b`, 'm'), `${group} --help lists ${sub}`);
  }
  const top = await runHub(['--help']);
  for (const c of [
    'audit-log',
    'export-audit-log',
    'users',
    'token',
    'ip-blocks',
    'block',
    'unblock',
    'blocks',
    'packages',
    'policies',
    'access-check',
    'cache',
    'upstream',
    'events',
    'health',
    'flags',
    'exposure',
    'check',
  ])
    t.match(top.stdout, new RegExp(`^ {2}${c} `, 'm'), `hub --help lists ${c}`);
});

t.test('bad usage exits 2, says what is wrong and which help to read, and sends nothing', async (t) => {
  // HUB_URL points at a closed port: had any of these sent a request, it would exit 1, not 2.
  const env = { HUB_URL: `http://127.0.0.1:${await closedPort()}`, HUB_TOKEN: 'x' };
  const cases: Array<[string[], RegExp, string]> = [
    [['audit-log', '--frobnicate'], /Unknown option '--frobnicate'/, 'audit-log'],
    [['audit-log', '--from', 'yesterday'], /--from must be a time/, 'audit-log'],
    [['audit-log', '--from', '2025-02-01', '--to', '2025-01-01'], /--from is after --to/, 'audit-log'],
    [['audit-log', '--limit', '0'], /--limit must be a positive whole number/, 'audit-log'],
    [['audit-log', '--limit', 'ten'], /--limit must be a positive whole number/, 'audit-log'],
    [['audit-log', '--ip', '10.0.0.300'], /not an IP address/, 'audit-log'],
    [['audit-log', '--action', ','], /--action needs at least one value/, 'audit-log'],
    [['audit-log', 'extra'], /Unexpected argument 'extra'/, 'audit-log'],
    [['export-audit-log', '--from', '24h'], /--output is required/, 'export-audit-log'],
    [['export-audit-log', '--format', 'xlsx', '--output', 'x.csv'], /--format must be csv/, 'export-audit-log'],
    [['export-audit-log', '--output', '/no/such/folder/x.csv'], /folder of --output/, 'export-audit-log'],
    [['ip-blocks'], /needs a sub-command/, 'ip-blocks'],
    [['ip-blocks', 'frob'], /unknown sub-command "ip-blocks frob"/, 'ip-blocks'],
    [['ip-blocks', 'add'], /missing argument/, 'ip-blocks add'],
    [['ip-blocks', 'add', '10.0.0.0/33'], /not an IP address or CIDR range/, 'ip-blocks add'],
    [['ip-blocks', 'add', 'example'], /not an IP address or CIDR range/, 'ip-blocks add'],
    [['ip-blocks', 'remove', '2001:db8::/129'], /not an IP address or CIDR range/, 'ip-blocks remove'],
    [['token', 'create'], /--user is required/, 'token create'],
    [
      ['token', 'create', '--user', 'ci', '--permissions', 'source:read,root'],
      /unknown permission "root"/,
      'token create',
    ],
    [['token', 'create', '--user', 'ci', '--expires-in', 'soon'], /--expires-in must be a duration/, 'token create'],
    [['token', 'create', '--user'], /argument missing/, 'token create'],
    [['token', 'revoke'], /missing argument/, 'token revoke'],
    [['users', 'create', 'a', 'b'], /unexpected argument "b"/, 'users create'],
    [['users', 'block'], /missing argument/, 'users block'],
    [['users', 'show'], /missing argument/, 'users show'],
    [['users', 'list', 'alice'], /Unexpected argument 'alice'/, 'users list'],
    [['block', '--registry', 'npm'], /--package is required/, 'block'],
    [
      ['block', '--registry', 'npm', '--package', 'x', '--version', '1', '--path', 'a/b'],
      /--version and --path cannot be used together/,
      'block',
    ],
    [['block', 'npm', 'x', '--registry', 'npm'], /either as --registry or as an argument/, 'block'],
    [['unblock'], /give a block id, or --registry and --package/, 'unblock'],
    [['unblock', '7', '--registry', 'npm'], /either a block id or --registry/, 'unblock'],
    [['packages', 'unlist', '--registry', 'npm', '--package', 'x'], /--version is required/, 'packages unlist'],
    [['packages', 'relist', 'npm', 'x', '1.0.0', 'extra'], /unexpected argument "extra"/, 'packages relist'],
    [['policies', 'create', '--permissions', 'source:read'], /--effect is required/, 'policies create'],
    [
      ['policies', 'create', '--effect', 'maybe', '--permissions', 'source:read'],
      /--effect must be allow or deny/,
      'policies create',
    ],
    [['policies', 'create', '--effect', 'deny'], /--permissions is required/, 'policies create'],
    [['policies', 'delete'], /missing argument/, 'policies delete'],
    [['access-check'], /--permission is required/, 'access-check'],
    [['access-check', '--permission', 'everything'], /unknown permission "everything"/, 'access-check'],
    [
      ['access-check', '--permission', 'source:read', '--user', 'a', '--roles', 'reader'],
      /--user and --roles cannot be used together/,
      'access-check',
    ],
    [['cache', 'purge', '--package', 'x'], /--registry is required/, 'cache purge'],
    [
      ['cache', 'purge', '--registry', 'npm', '--package', 'x', '--url', 'ftp://example'],
      /must be an http or https URL/,
      'cache purge',
    ],
    [['audit-log', '--url', 'not a url'], /is not a URL/, 'audit-log'],
  ];
  await expectUsageErrors(t, cases, env);
});

t.test('an unreachable hub: exit 1, a message naming the URL, no stack trace', async (t) => {
  const url = `http://127.0.0.1:${await closedPort()}`;
  for (const args of [
    ['audit-log'],
    ['users', 'create', 'x'],
    ['export-audit-log', '--output', '-'],
    ['access-check', '--permission', 'source:read', '--json'],
  ]) {
    const viaEnv = await runHub(args, { HUB_URL: url });
    t.equal(viaEnv.code, 1, `${args[0]}: exit 1`);
    t.equal(
      viaEnv.stderr,
      `hub: cannot reach the hub at ${url}: connection refused (is it running? set --url or HUB_URL)\n`,
      `${args[0]}: one clear line`,
    );
    t.equal(viaEnv.stdout, '');
  }
  const viaFlag = await runHub(['ip-blocks', 'list', '--url', `${url}/`], { HUB_URL: 'http://127.0.0.1:8080' });
  t.match(viaFlag.stderr, `cannot reach the hub at ${url}:`, '--url wins over HUB_URL');
});

t.test('option values: times, durations, addresses', async (t) => {
  const now = Date.parse('2025-03-01T12:00:00Z');
  t.equal(instant('2025-01-31', 'from', 'x', now), '2025-01-31T00:00:00.000Z', 'a date is UTC midnight');
  t.equal(instant('2025-01-31T08:30', 'from', 'x', now), '2025-01-31T08:30:00.000Z', 'no zone: UTC');
  t.equal(instant('2025-01-31 08:30:15', 'from', 'x', now), '2025-01-31T08:30:15.000Z');
  t.equal(instant('2025-01-31T08:30:00+02:00', 'from', 'x', now), '2025-01-31T06:30:00.000Z', 'an offset is honoured');
  t.equal(instant('24h', 'from', 'x', now), '2025-02-28T12:00:00.000Z', 'a span back from now');
  t.equal(instant('90m', 'from', 'x', now), '2025-03-01T10:30:00.000Z');
  for (const bad of ['1', 'yesterday', '2025-13-01', '2025-01-31T25:00Z', '-1d'])
    t.throws(() => instant(bad, 'from', 'x', now), `${bad} is refused`);
  t.equal(duration('3600', 'e', 'x'), 3600);
  t.equal(duration('30d', 'e', 'x'), 2_592_000);
  t.equal(duration('2w', 'e', 'x'), 1_209_600);
  for (const bad of ['0', '1.5h', 'h', '-5']) t.throws(() => duration(bad, 'e', 'x'), `${bad} is refused`);
  for (const ok of ['203.0.113.7', '198.51.100.0/24', '0.0.0.0/0', '2001:db8::/32', '::1', '::ffff:10.0.0.1'])
    t.equal(ipOrCidr(ok, 'x'), ok);
  for (const bad of [
    '10.0.0.0/33',
    '10.0.0/8',
    '2001:db8::/129',
    '1.2.3.4/',
    '1.2.3.4/8/9',
    'localhost',
    '10.0.0.0/-1',
  ])
    t.throws(() => ipOrCidr(bad, 'x'), `${bad} is refused`);
});
