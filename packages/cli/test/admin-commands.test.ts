/**
 * The admin commands against a real hub (admin plugin + npm over the fixture upstream), run in-process
 * through main(): each command's effect, its text and --json output, refusals (exit 1 with the
 * server's message and request_id). Issue 5, item 6.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { parseCsv } from '@hub/testkit';
import { eventually, json, startAdminHub } from './run-hub.js';

const s = await startAdminHub(t);

/** Status and error code of a registry request. */
async function get(
  p: string,
  token?: string,
  accept?: string,
): Promise<{ status: number; code?: string; body: string }> {
  const res = await fetch(`${s.base}${p}`, {
    headers: { ...(token && { authorization: `Bearer ${token}` }), ...(accept && { accept }) },
  });
  const body = Buffer.from(await res.arrayBuffer());
  const text = res.headers.get('content-type')?.includes('json') ? body.toString('utf8') : '';
  let code: string | undefined;
  try {
    code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
  } catch {
    code = undefined;
  }
  return { status: res.status, code, body: text };
}

/** Waits for a policy change to reach the request path (memos live about a second). */
const settles = async (p: string, token: string, status: number) =>
  (await eventually(async () => (await get(p, token)).status === status)) === true;

/** The rows of a list answer: `{<key>: [...]}`. */
const rows = (v: unknown, key: string): any[] => {
  const list = (v as Record<string, unknown>)[key];
  if (!Array.isArray(list)) throw new Error(`no array "${key}" in ${JSON.stringify(v)}`);
  return list;
};

const REFUSED = /\(HTTP 403, forbidden, request_id \S+\)/;

t.test('users create, block and unblock', async (t) => {
  const created = await s.cli(['users', 'create', 'alice', '--roles', 'reader']);
  t.equal(created.code, 0, created.stderr);
  t.match(created.stdout, /^created user alice: roles reader/);
  const bob = await s.cli(['users', 'create', 'bob', '--roles', 'reader, publisher', '--json']);
  t.equal(bob.code, 0, bob.stderr);
  t.match(json(bob), { id: 'bob', roles: ['reader', 'publisher'] }, '--json prints the user');

  const dup = await s.cli(['users', 'create', 'alice']);
  t.equal(dup.code, 1, 'a duplicate user is refused');
  t.match(dup.stderr, /^hub: .+ \(HTTP 409, conflict, request_id \S+\)\n$/, 'the server message, code and request_id');

  const token = await s.token('alice');
  t.equal((await get('/hubdemo/1.0.0/tarball', token)).status, 200);
  const blocked = await s.cli(['users', 'block', 'alice', '--json']);
  t.equal(blocked.code, 0, blocked.stderr);
  t.match(json(blocked), { id: 'alice', blocked: true });
  t.ok(await settles('/hubdemo/1.0.0/tarball', token, 403), 'a blocked user is refused');
  t.equal((await get('/hubdemo/1.0.0/tarball', token)).code, 'user_blocked');

  const unblocked = await s.cli(['users', 'unblock', 'alice']);
  t.equal(unblocked.code, 0, unblocked.stderr);
  t.match(unblocked.stdout, /^unblocked user alice/);
  t.ok(await settles('/hubdemo/1.0.0/tarball', token, 200), 'unblocking restores access');

  const list = await s.cli(['users', 'list']);
  t.equal(list.code, 0, list.stderr);
  t.match(list.stdout, /^ID\s+ROLES\s+BLOCKED\s+CREATED\n/);
  t.match(list.stdout, /^alice\s+reader\s+no\s/m);
  t.match(list.stdout, /^bob\s+reader,publisher\s+no\s/m);
  t.match(rows(json(await s.cli(['users', 'list', '--json'])), 'users'), [
    { id: 'admin' },
    { id: 'alice' },
    { id: 'bob' },
  ]);
  const shown = await s.cli(['users', 'show', 'alice']);
  t.equal(shown.code, 0, shown.stderr);
  t.match(
    shown.stdout,
    /^user alice: roles reader; active\nTOKEN_ID\s+PERMISSIONS\s+EXPIRES\s+REVOKED\s+CREATED\n[0-9a-f]+\s+\(the user's\)\s+-\s+-\s/,
  );
  t.match(json(await s.cli(['users', 'show', 'alice', '--json'])), { id: 'alice', tokens: [{ id: String }] });

  const unknown = await s.cli(['users', 'block', 'nobody-at-all']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /HTTP 404, not_found/);
});

t.test('token create and revoke', async (t) => {
  t.equal((await s.cli(['users', 'create', 'carol', '--roles', 'reader'])).code, 0);
  const created = await s.cli(['token', 'create', '--user', 'carol', '--expires-in', '1h']);
  t.equal(created.code, 0, created.stderr);
  t.match(created.stdout, /^\S+\n$/, 'the token alone on standard output');
  const token = created.stdout.trim();
  const id = /created token (\S+) for user carol/.exec(created.stderr)?.[1];
  t.ok(id, 'its id on standard error');
  t.match(created.stderr, /expiring \d{4}-\d\d-\d\dT[\d:.]+Z; it is shown only this once/);
  t.equal((await get('/hubdemo/1.0.0/tarball', token)).status, 200, 'the new token works');

  const narrowed = await s.cli(['token', 'create', '--user', 'carol', '--permissions', 'system:read', '--json']);
  t.equal(narrowed.code, 0, narrowed.stderr);
  const n = json<{ id: string; token: string }>(narrowed);
  t.match(n, { id: String, token: String }, '--json: {id, token}');
  t.equal(
    (await get('/hubdemo/1.0.0/tarball', n.token)).status,
    403,
    'a token narrowed to system:read cannot download',
  );

  const revoked = await s.cli(['token', 'revoke', id!]);
  t.equal(revoked.code, 0, revoked.stderr);
  t.equal(revoked.stdout, `revoked token ${id}\n`);
  t.ok(await settles('/hubdemo/1.0.0/tarball', token, 401), 'a revoked token is refused');
  t.match(
    json(await s.cli(['users', 'show', 'carol', '--json'])).tokens,
    [
      { id, revoked_at: String },
      { permissions: ['system:read'], revoked_at: null },
    ],
    'users show tells the revoked token apart',
  );

  const short = await s.cli(['token', 'create', '--user', 'carol', '--expires-in', '1s']);
  t.equal(short.code, 0, short.stderr);
  t.ok(await settles('/hubdemo/1.0.0/tarball', short.stdout.trim(), 401), 'an expired token is refused');

  const noUser = await s.cli(['token', 'create', '--user', 'nobody-at-all']);
  t.equal(noUser.code, 1, 'a token for an unknown user is refused');
  t.match(noUser.stderr, /request_id/);
});

t.test('ip-blocks add, list and remove', async (t) => {
  const add = await s.cli(['ip-blocks', 'add', '203.0.113.9/24', '--reason', 'credential stuffing']);
  t.equal(add.code, 0, add.stderr);
  t.equal(add.stdout, 'blocked 203.0.113.0/24\n', 'the range as the hub stored it');
  const v6 = await s.cli(['ip-blocks', 'add', '2001:db8::/32', '--json']);
  t.equal(v6.code, 0, v6.stderr);
  t.type(json(v6), 'object');

  const listed = await s.cli(['ip-blocks', 'list']);
  t.equal(listed.code, 0, listed.stderr);
  t.match(listed.stdout, /^IP\s+/, 'a table');
  t.match(listed.stdout, /^203\.0\.113\.0\/24\s+admin\s+\S+\s+credential stuffing$/m);
  t.match(listed.stdout, /^2001:db8::\/32\s/m);
  const listedJson = rows(json(await s.cli(['ip-blocks', 'list', '--json'])), 'ip_blocks');
  t.same(listedJson.map((r) => r.ip).sort(), ['2001:db8::/32', '203.0.113.0/24']);
  t.match(listedJson, [
    { ip: '203.0.113.0/24', reason: 'credential stuffing', created_by: 'admin', created_at: String },
    { ip: '2001:db8::/32', reason: null },
  ]);
  const own = await s.cli(['ip-blocks', 'add', '127.0.0.0/8']);
  t.equal(own.code, 1, 'the hub refuses to lock the caller out');
  t.match(own.stderr, /covers your own address .*HTTP 400, bad_request/);

  const dup = await s.cli(['ip-blocks', 'add', '203.0.113.0/24']);
  t.equal(dup.code, 1);
  t.match(dup.stderr, /HTTP 409, conflict/);

  const removed = await s.cli(['ip-blocks', 'remove', '203.0.113.0/24']);
  t.equal(removed.code, 0, removed.stderr);
  t.equal(removed.stdout, 'unblocked 203.0.113.0/24\n');
  t.notMatch((await s.cli(['ip-blocks', 'list'])).stdout, /203\.0\.113/);
  t.equal((await s.cli(['ip-blocks', 'remove', '2001:db8::/32'])).code, 0);
  const empty = await s.cli(['ip-blocks', 'list']);
  t.equal(empty.code, 0);
  t.equal(empty.stderr, 'no IP blocks\n');
  const gone = await s.cli(['ip-blocks', 'remove', '203.0.113.0/24']);
  t.equal(gone.code, 1, 'removing what is not blocked is refused');
  t.match(gone.stderr, /HTTP 404, not_found/);
});

t.test('block, blocks list and unblock: by version, by package, scoped names', async (t) => {
  const token = await s.token('reader-for-blocks');
  const blocked = await s.cli([
    'block',
    '--registry',
    'npm',
    '--package',
    'hubdemo',
    '--version',
    '1.0.0',
    '--reason',
    'bad release',
  ]);
  t.equal(blocked.code, 0, blocked.stderr);
  t.match(blocked.stdout, /^blocked npm hubdemo@1\.0\.0 \(block \S+, by admin\)\n$/);
  t.ok(await settles('/hubdemo/1.0.0/tarball', token, 403), 'the version is refused');
  t.equal((await get('/hubdemo/1.0.0/tarball', token)).code, 'package_blocked');
  t.equal((await get('/hubdemo/1.1.0/tarball', token)).status, 200, 'other versions are not');

  const dup = await s.cli(['block', '--registry', 'npm', '--package', 'hubdemo', '--version', '1.0.0']);
  t.equal(dup.code, 1);
  t.match(dup.stderr, /HTTP 409, conflict/);

  const listed = await s.cli(['blocks', 'list']);
  t.equal(listed.code, 0, listed.stderr);
  t.match(listed.stdout, /^ID\s+REGISTRY\s+PACKAGE\s+VERSION\/PATH\s+BLOCKED_BY/);
  t.match(listed.stdout, /\bnpm\s+hubdemo\s+1\.0\.0\s+admin\s+.*bad release$/m);
  const listedJson = rows(json(await s.cli(['blocks', 'list', '--registry', 'npm', '--json'])), 'blocks');
  t.match(listedJson, [
    { id: /./, registry: 'npm', package_name: 'hubdemo', version: '1.0.0', blocked_by: 'admin', reason: 'bad release' },
  ]);
  t.same(
    rows(json(await s.cli(['blocks', 'list', '--blocked-by', 'system:upstream-audit', '--json'])), 'blocks'),
    [],
    'filtered by blocked_by',
  );

  const unblocked = await s.cli(['unblock', '--registry', 'npm', '--package', 'hubdemo', '--version', '1.0.0']);
  t.equal(unblocked.code, 0, unblocked.stderr);
  t.match(unblocked.stdout, /^unblocked npm hubdemo@1\.0\.0 \(block \S+\)\n$/);
  t.ok(await settles('/hubdemo/1.0.0/tarball', token, 200), 'unblocking restores access');

  const whole = await s.cli(['block', 'npm', 'hubdep', '--json']);
  t.equal(whole.code, 0, whole.stderr);
  const row = json<{ id: unknown; blocked_by: string; package_name: string }>(whole);
  t.match(row, { package_name: 'hubdep', blocked_by: 'admin' }, '--json prints the block');
  t.ok(await settles('/hubdep/1.0.0/tarball', token, 403), 'a package block refuses every version');
  const byId = await s.cli(['unblock', String(row.id)]);
  t.equal(byId.code, 0, byId.stderr);
  t.equal(byId.stdout, `unblocked block ${String(row.id)}\n`);
  t.ok(await settles('/hubdep/1.0.0/tarball', token, 200));

  t.equal((await s.cli(['block', '--registry', 'npm', '--package', '@hubtest/scoped'])).code, 0);
  t.ok(await settles('/@hubtest%2fscoped/1.0.0/tarball', token, 403), 'scoped names are blocked');
  const scoped = await s.cli(['unblock', '--registry', 'npm', '--package', '@hubtest/scoped']);
  t.equal(scoped.code, 0, scoped.stderr);
  t.ok(await settles('/@hubtest%2fscoped/1.0.0/tarball', token, 200));

  const path = await s.cli([
    'block',
    '--registry',
    'npm',
    '--package',
    'hubdemo',
    '--path',
    'hubdemo/-/hubdemo-1.0.0.tgz',
  ]);
  t.equal(path.code, 1, '--path on a package-addressed registry is refused by the hub');
  t.match(path.stderr, /path is for path-addressed registries.*HTTP 400, bad_request/);
  const none = await s.cli(['unblock', '--registry', 'npm', '--package', 'hubdemo']);
  t.equal(none.code, 1, 'unblocking what is not blocked fails');
  t.match(none.stderr, /no block on npm hubdemo; see hub blocks list --registry npm/);
  const badId = await s.cli(['unblock', '999999']);
  t.equal(badId.code, 1);
  t.match(badId.stderr, /HTTP 404, not_found/);
});

t.test('packages unlist and relist', async (t) => {
  const token = await s.token('reader-for-unlist');
  const versions = async () =>
    Object.keys(
      (JSON.parse((await get('/hubdemo', token, 'application/json')).body) as { versions: object }).versions,
    ).sort();
  t.same(await versions(), ['1.0.0', '1.1.0']);
  const unlisted = await s.cli([
    'packages',
    'unlist',
    '--registry',
    'npm',
    '--package',
    'hubdemo',
    '--version',
    '1.1.0',
  ]);
  t.equal(unlisted.code, 0, unlisted.stderr);
  t.equal(unlisted.stdout, 'unlisted npm hubdemo@1.1.0\n');
  t.ok(await eventually(async () => !(await versions()).includes('1.1.0')), 'gone from the packument');
  t.equal((await get('/hubdemo/1.1.0/tarball', token)).status, 200, 'still downloadable by exact version');
  const again = await s.cli(['packages', 'unlist', 'npm', 'hubdemo', '1.1.0']);
  t.equal(again.code, 1);
  t.match(again.stderr, /HTTP 409, conflict/);
  const listed = await s.cli(['packages', 'unlisted', '--registry', 'npm']);
  t.equal(listed.code, 0, listed.stderr);
  t.match(
    listed.stdout,
    /^REGISTRY\s+PACKAGE\s+VERSION\s+UNLISTED_BY\s+CREATED\nnpm\s+hubdemo\s+1\.1\.0\s+admin\s+\S+\n$/,
  );
  t.match(json(await s.cli(['packages', 'unlisted', '--package', 'hubdemo', '--json'])), {
    unlisted: [{ registry: 'npm', package_name: 'hubdemo', version: '1.1.0', unlisted_by: 'admin' }],
  });

  const relisted = await s.cli(['packages', 'relist', 'npm', 'hubdemo', '1.1.0', '--json']);
  t.equal(relisted.code, 0, relisted.stderr);
  t.type(json(relisted), 'object');
  t.ok(await eventually(async () => (await versions()).includes('1.1.0')), 'back in the packument');

  t.equal((await s.cli(['packages', 'unlist', 'npm', 'hubdemo', '1.0.0'])).code, 0, 'positional form');
  t.ok(await eventually(async () => !(await versions()).includes('1.0.0')));
  const back = await s.cli([
    'packages',
    'unlist',
    '--relist',
    '--registry',
    'npm',
    '--package',
    'hubdemo',
    '--version',
    '1.0.0',
  ]);
  t.equal(back.code, 0, back.stderr);
  t.equal(back.stdout, 'relisted npm hubdemo@1.0.0\n');
  t.ok(await eventually(async () => (await versions()).includes('1.0.0')));
  const empty = await s.cli(['packages', 'unlisted']);
  t.equal(empty.stderr, 'no unlisted versions\n');
  const notUnlisted = await s.cli(['packages', 'relist', 'npm', 'hubdemo', '1.0.0']);
  t.equal(notUnlisted.code, 1);
  t.match(notUnlisted.stderr, /HTTP 404, not_found/);
});

t.test('access-check: exit 0 when allowed, 1 when denied', async (t) => {
  const allowed = await s.cli([
    'access-check',
    '--roles',
    'reader',
    '--permission',
    'source:read',
    '--registry',
    'npm',
    '--package',
    'hubdemo',
  ]);
  t.equal(allowed.code, 0, allowed.stderr);
  t.match(allowed.stdout, /^allow: .+\n/);
  const denied = await s.cli(['access-check', '--roles', 'reader', '--permission', 'system:write']);
  t.equal(denied.code, 1, 'denied is exit 1');
  t.match(denied.stdout, /^deny: .+\n/);
  t.equal(denied.stderr, '');
  const asJson = await s.cli(['access-check', '--roles', 'auditor', '--permission', 'system:write', '--json']);
  t.equal(asJson.code, 1);
  t.match(json(asJson), { decision: 'deny', reason: String });
  t.ok('rule' in json(asJson), '--json carries the deciding rule');
  const user = await s.cli(['access-check', '--user', 'admin', '--permission', 'system:write', '--json']);
  t.equal(user.code, 0, user.stderr);
  t.match(json(user), { decision: 'allow' });
});

t.test('policies create, list and delete, seen through access-check', async (t) => {
  t.equal((await s.cli(['users', 'create', 'dave', '--roles', 'reader'])).code, 0);
  const check = (pkg: string) =>
    s.cli(['access-check', '--user', 'dave', '--permission', 'source:read', '--registry', 'npm', '--package', pkg]);
  t.equal((await check('hubdemo')).code, 0, 'allowed before');
  const created = await s.cli([
    'policies',
    'create',
    '--effect',
    'deny',
    '--permissions',
    'source:read',
    '--users',
    'dave',
    '--packages',
    'hubdem*',
    '--name',
    'no-demo',
  ]);
  t.equal(created.code, 0, created.stderr);
  const rule = /^created policy (policy:\d+:no-demo): deny source:read\n$/.exec(created.stdout)?.[1];
  t.ok(rule, created.stdout);
  const denied = await check('hubdemo');
  t.equal(denied.code, 1, 'the deny policy wins over the reader role');
  t.match(denied.stdout, `rule: ${rule}`);
  t.equal((await check('hubdep')).code, 0, 'other packages are not covered');

  const listed = await s.cli(['policies', 'list']);
  t.equal(listed.code, 0, listed.stderr);
  t.match(
    listed.stdout,
    /^RULE\s+SOURCE\s+EFFECT\s+PERMISSIONS\s+USERS\s+ROLES\s+TOKENS\s+REGISTRIES\s+PACKAGES\s+NAME\n/,
  );
  t.match(
    listed.stdout,
    new RegExp(`^${rule}\\s+api\\s+deny\\s+source:read\\s+dave\\s+-\\s+-\\s+-\\s+hubdem\\*\\s+no-demo$`, 'm'),
  );
  t.match(json(await s.cli(['policies', 'list', '--json'])).policies, [
    { rule, source: 'api', effect: 'deny', users: ['dave'], packages: ['hubdem*'] },
  ]);

  const deleted = await s.cli(['policies', 'delete', rule!]);
  t.equal(deleted.code, 0, deleted.stderr);
  t.equal(deleted.stdout, `deleted policy ${rule}\n`);
  t.ok(await eventually(async () => (await check('hubdemo')).code === 0), 'allowed again');
  const gone = await s.cli(['policies', 'delete', rule!]);
  t.equal(gone.code, 1);
  t.match(gone.stderr, /HTTP 404, not_found/);
  const bad = await s.cli(
    ['policies', 'create', '--effect', 'allow', '--permissions', 'system:write', '--roles', 'reader'],
    { HUB_TOKEN: await s.token('op', { roles: ['operator'] }) },
  );
  t.equal(bad.code, 0, 'an operator may allow what it holds');
  const beyond = await s.cli(
    ['policies', 'create', '--effect', 'allow', '--permissions', 'source:write', '--roles', 'reader'],
    { HUB_TOKEN: await s.token('op') },
  );
  t.equal(beyond.code, 1, 'but not what it lacks');
  t.match(beyond.stderr, REFUSED);
  t.equal((await s.cli(['policies', 'delete', /created policy (\S+):/.exec(bad.stdout)![1]!])).code, 0);
});

t.test('cache purge: the next download goes upstream again', async (t) => {
  const token = await s.token('reader-for-purge');
  const file = '/hubdemo/-/hubdemo-1.0.0.tgz';
  t.equal((await get('/hubdemo/1.0.0/tarball', token)).status, 200);
  t.equal((await get('/hubdemo/1.0.0/tarball', token)).status, 200);
  t.equal(s.upstream.count(file), 1, 'cached after the first download');
  await s.hub.artifacts.idle();

  const purged = await s.cli(['cache', 'purge', '--registry', 'npm', '--package', 'hubdemo', '--version', '1.0.0']);
  t.equal(purged.code, 0, purged.stderr);
  t.match(purged.stdout, /^purged npm hubdemo@1\.0\.0/);
  t.equal((await get('/hubdemo/1.0.0/tarball', token)).status, 200);
  t.equal(s.upstream.count(file), 2, 'fetched again after the purge');
  await s.hub.artifacts.idle(); // its row is written just after the body was sent: purge it, not a race with it

  const whole = await s.cli(['cache', 'purge', 'npm', 'hubdemo', '--json']);
  t.equal(whole.code, 0, whole.stderr);
  t.type(json(whole), 'object');
  t.equal((await get('/hubdemo/1.0.0/tarball', token)).status, 200);
  t.equal(s.upstream.count(file), 3, 'a package purge covers every version');

  t.equal((await get('/@hubtest%2fscoped/1.0.0/tarball', token)).status, 200);
  const scoped = await s.cli(['cache', 'purge', '--registry', 'npm', '--package', '@hubtest/scoped']);
  t.equal(scoped.code, 0, scoped.stderr);
  const unknown = await s.cli(['cache', 'purge', '--registry', 'nope', '--package', 'hubdemo']);
  t.equal(unknown.code, 1, 'an unknown registry is refused');
  t.match(unknown.stderr, /HTTP 404, not_found/);
});

t.test('audit-log: filters, cursors, text and --json; export-audit-log writes the same rows as CSV', async (t) => {
  // Events from the tests above are written in batches: write what is queued; rows of the reads below come after `to`.
  await s.hub.audit.flush();
  const to = new Date().toISOString();
  t.ok(
    rows(json(await s.cli(['audit-log', '--to', to, '--denied-only', '--json'])), 'entries').length > 0,
    'denials are logged',
  );
  const all = json<{ entries: any[]; next_cursor: unknown }>(await s.cli(['audit-log', '--to', to, '--json']));
  t.equal(all.next_cursor, null, 'all pages followed');
  t.ok(all.entries.length > 10, `${all.entries.length} entries`);
  for (const m of ['user_id', 'token_id', 'ip_address', 'action', 'outcome', 'registry', 'status'])
    t.ok(m in all.entries[0], `entries carry ${m}`);

  const paged = json<{ entries: any[] }>(await s.cli(['audit-log', '--to', to, '--page-size', '3', '--json']));
  t.same(paged.entries, all.entries, 'following cursors 3 at a time gives the same rows');

  const first = await s.cli(['audit-log', '--to', to, '--limit', '2', '--json']);
  const page = json<{ entries: any[]; next_cursor: string }>(first);
  t.same(page.entries, all.entries.slice(0, 2), '--limit: one page');
  t.type(page.next_cursor, 'string', 'with the next cursor');
  const second = json<{ entries: any[] }>(
    await s.cli(['audit-log', '--to', to, '--limit', '2', '--cursor', page.next_cursor, '--json']),
  );
  t.same(second.entries, all.entries.slice(2, 4), '--cursor continues');
  const text = await s.cli(['audit-log', '--to', to, '--limit', '2']);
  t.match(text.stderr, /more entries follow: add --cursor \S+/);

  const denied = json<{ entries: any[] }>(await s.cli(['audit-log', '--to', to, '--denied-only', '--json']));
  t.same(
    denied.entries,
    all.entries.filter((e) => e.outcome === 'denied'),
    '--denied-only',
  );
  t.ok(
    denied.entries.some((e) => e.user_id === 'alice'),
    'the blocked user is there',
  );
  const actions = json<{ entries: any[] }>(
    await s.cli(['audit-log', '--to', to, '--action', 'delete,download', '--json']),
  );
  t.same(
    actions.entries,
    all.entries.filter((e) => e.action === 'delete' || e.action === 'download'),
    '--action',
  );
  t.ok(
    actions.entries.some((e) => e.action === 'delete' && e.package === 'hubdemo'),
    'the cache purge is logged as delete',
  );
  const ip = json<{ entries: any[] }>(await s.cli(['audit-log', '--to', to, '--ip', '127.0.0.1', '--json']));
  t.same(
    ip.entries,
    all.entries.filter((e) => e.ip_address === '127.0.0.1'),
    '--ip',
  );
  t.ok(ip.entries.length > 0);
  const alice = json<{ entries: any[] }>(await s.cli(['audit-log', '--to', to, '--user', 'alice', '--json']));
  t.same(
    alice.entries,
    all.entries.filter((e) => e.user_id === 'alice'),
    '--user',
  );
  t.ok(alice.entries.length > 0);
  const npm = json<{ entries: any[] }>(await s.cli(['audit-log', '--to', to, '--registry', 'npm', '--json']));
  t.same(
    npm.entries,
    all.entries.filter((e) => e.registry === 'npm'),
    '--registry',
  );
  const none = await s.cli(['audit-log', '--to', to, '--ip', '192.0.2.1']);
  t.equal(none.code, 0);
  t.equal(none.stdout, '');
  t.equal(none.stderr, 'no audit-log entries match\n');
  const future = json<{ entries: any[] }>(await s.cli(['audit-log', '--from', '2999-01-01', '--json']));
  t.same(future.entries, [], '--from');

  const table = await s.cli(['audit-log', '--to', to]);
  t.equal(table.code, 0, table.stderr);
  const lines = table.stdout.trimEnd().split('\n');
  t.match(
    lines[0],
    /^TIME\s+OUTCOME\s+ACTION\s+STATUS\s+CODE\s+USER\s+TOKEN\s+IP\s+REGISTRY\s+VIA_GROUP\s+PACKAGE\s+VERSION\s+DETAIL$/,
  );
  t.equal(lines.length, all.entries.length + 1, 'one line per entry');

  const dir = t.testdir({});
  const file = path.join(dir, 'audit.csv');
  const exported = await s.cli(['export-audit-log', '--to', to, '--format', 'csv', '--output', file]);
  t.equal(exported.code, 0, exported.stderr);
  t.match(exported.stderr, new RegExp(`^wrote \\d+ bytes of CSV to ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n$`));
  const csv = fs.readFileSync(file, 'utf8');
  const [header, ...data] = parseCsv(csv);
  for (const m of ['user_id', 'ip_address', 'action', 'outcome']) t.ok(header!.includes(m), `the CSV has ${m}`);
  t.equal(data.length, all.entries.length, 'the CSV has the same rows');
  const at = (m: string) => header!.indexOf(m);
  t.same(
    data.map((r) => [r[at('action')], r[at('outcome')], r[at('ip_address')]]),
    all.entries.map((e) => [e.action, e.outcome, e.ip_address]),
    'row for row',
  );
  t.same(fs.readdirSync(dir), ['audit.csv'], 'no partial file left behind');
  const toStdout = await s.cli(['export-audit-log', '--to', to, '--output', '-']);
  t.equal(toStdout.code, 0, toStdout.stderr);
  t.equal(toStdout.stdout, csv, '--output - writes the same CSV to standard output');
  const asJson = await s.cli(['export-audit-log', '--to', to, '--output', file, '--json']);
  t.same(json(asJson), { output: file, bytes: Buffer.byteLength(csv) });
});

t.test(
  'a token without the permission: exit 1 with the server message and request_id; no token: 401 with a hint',
  async (t) => {
    const reader = await s.token('plain-reader', { roles: ['reader'] });
    const auditor = await s.token('plain-auditor', { roles: ['auditor'] });
    const dir = t.testdir({});
    const cases: Array<[string[], string]> = [
      [['audit-log'], reader],
      [['export-audit-log', '--output', path.join(dir, 'x.csv')], reader],
      [['ip-blocks', 'list'], reader],
      [['ip-blocks', 'add', '198.51.100.7'], auditor],
      [['ip-blocks', 'remove', '198.51.100.7'], auditor],
      [['token', 'create', '--user', 'alice'], auditor],
      [['token', 'revoke', 'abc'], auditor],
      [['users', 'create', 'mallory'], auditor],
      [['users', 'block', 'alice'], auditor],
      [['users', 'unblock', 'alice'], auditor],
      [['users', 'list'], reader],
      [['users', 'show', 'alice'], reader],
      [['packages', 'unlisted'], reader],
      [['policies', 'list'], reader],
      [['policies', 'create', '--effect', 'deny', '--permissions', 'source:read', '--users', 'x'], auditor],
      [['policies', 'delete', '1'], auditor],
      [['block', 'npm', 'hubdemo'], auditor],
      [['unblock', '1'], auditor],
      [['unblock', '--registry', 'npm', '--package', 'hubdemo'], reader],
      [['blocks', 'list'], reader],
      [['packages', 'unlist', 'npm', 'hubdemo', '1.0.0'], auditor],
      [['packages', 'relist', 'npm', 'hubdemo', '1.0.0'], auditor],
      [['access-check', '--permission', 'source:read'], reader],
      [['cache', 'purge', 'npm', 'hubdemo'], auditor],
    ];
    const runs = await Promise.all(cases.map(([args, token]) => s.cli(args, { HUB_TOKEN: token })));
    cases.forEach(([args], i) => {
      const r = runs[i]!;
      t.equal(r.code, 1, `${args.join(' ')}: exit 1`);
      t.match(r.stderr, REFUSED, `${args.join(' ')}: forbidden, with the request_id`);
      t.notMatch(r.stderr, /\n\s+at /, 'no stack trace');
    });
    t.same(fs.readdirSync(dir), [], 'a refused export writes no file');

    const asJson = await s.cli(['users', 'create', 'mallory', '--json'], { HUB_TOKEN: auditor });
    t.equal(asJson.code, 1);
    t.match(
      json(asJson),
      { error: { code: 'forbidden', message: String, request_id: String } },
      '--json prints the error body',
    );

    const anonymous = await s.cli(['audit-log'], { HUB_TOKEN: '' });
    t.equal(anonymous.code, 1);
    t.match(
      anonymous.stderr,
      /\(HTTP 401, unauthenticated, request_id \S+\)\nhub: no token given: pass --token or set HUB_TOKEN\n$/,
    );
    const wrong = await s.cli(['audit-log', '--token', 'hub_not_a_real_token']);
    t.equal(wrong.code, 1);
    t.match(wrong.stderr, /HTTP 401, unauthenticated/);
    t.notMatch(wrong.stderr, /no token given/);
    const flag = await s.cli(['audit-log', '--limit', '1', '--token', s.adminToken], { HUB_TOKEN: reader });
    t.equal(flag.code, 0, '--token wins over HUB_TOKEN');
  },
);
