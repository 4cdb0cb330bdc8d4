/**
 * hub waivers request|approve|reject|revoke|list against a real hub (@hub/admin, @hub/waivers, npm over the
 * npm fixture upstream), in-process through main(): a block, a waiver asked for one user, refused to its
 * requester, approved by another operator, listed, revoked; the tarball follows each step.
 */
import { fileURLToPath } from 'node:url';
import t from 'tap';
import admin from '@hub/admin';
import npm from '@hub/kind-npm';
import waivers from '@hub/waivers';
import { npmFixtureHandler, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { expectUsageErrors, json, runHub } from './run-hub.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));

const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
t.teardown(() => upstream.close());
const s = await startTestHub({
  dir: t.testdir(),
  plugins: [npm, admin, waivers],
  registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
});
t.teardown(() => s.close());

const alice = await s.token('alice', { roles: ['operator', 'reader'] });
const carol = await s.token('carol', { roles: ['operator', 'reader'] });
const bob = await s.token('bob', { roles: ['reader'] });
const cli = (token: string, args: string[]) => runHub(args, { HUB_URL: s.url, HUB_TOKEN: token });
const tarball = async (token: string) => {
  const res = await fetch(`${s.url}/proxy/npm/hubdep/-/hubdep-1.0.0.tgz`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await res.arrayBuffer();
  return res.status;
};

t.test('request, a refused self-approval, approve, list, revoke', async (t) => {
  const block = await cli(s.adminToken, ['block', 'npm', 'hubdep', '--reason', 'review', '--json']);
  t.equal(block.code, 0, block.stderr);
  const blockId = json(block).id as number;
  t.equal(await tarball(bob), 403);

  const asked = await cli(alice, [
    'waivers',
    'request',
    `block:${blockId}`,
    '--registry',
    'npm',
    '--package',
    'hubdep',
    '--version',
    '1.0.0',
    '--for',
    'user:bob',
    '--reason',
    'hotfix',
    '--expires',
    '2d',
  ]);
  t.equal(asked.code, 0, asked.stderr);
  const id = /^waiver (\d+) pending: block:\d+ on npm\/hubdep@1\.0\.0 until \S+\n$/.exec(asked.stdout)?.[1];
  t.ok(id, `one line: ${asked.stdout}`);

  const self = await cli(alice, ['waivers', 'approve', id!]);
  t.equal(self.code, 1);
  t.match(self.stderr, /requested by alice: another person must approve it \(HTTP 403, forbidden/);
  const ok = await cli(carol, ['waivers', 'approve', id!, '--json']);
  t.equal(ok.code, 0, ok.stderr);
  t.match(json(ok), { id: Number(id), state: 'active', decided_by: 'carol', scope: { type: 'user', id: 'bob' } });
  t.equal(await tarball(bob), 200, 'bob fetches 1.0.0');
  t.equal(await tarball(alice), 403, 'alice does not');

  const list = await cli(alice, ['waivers', 'list', '--package', 'hubdep']);
  t.equal(list.code, 0, list.stderr);
  t.match(
    list.stdout,
    /^ID\s+STATE\s+TARGET\s+REGISTRY\s+PACKAGE\s+VERSION\s+FOR\s+REQUESTED_BY\s+DECIDED_BY\s+EXPIRES\s+REASON\n/,
  );
  t.match(
    list.stdout,
    new RegExp(
      `\\n${id}\\s+active\\s+block:${blockId}\\s+npm\\s+hubdep\\s+1\\.0\\.0\\s+user:bob\\s+alice\\s+carol\\s+`,
    ),
  );

  const revoked = await cli(alice, ['waivers', 'revoke', id!]);
  t.equal(revoked.code, 0, revoked.stderr);
  t.match(revoked.stdout, new RegExp(`^waiver ${id} revoked:`));
  t.equal(await tarball(bob), 403, 'revoked: refused again');

  const other = await cli(alice, [
    'waivers',
    'request',
    `block:${blockId}`,
    '--registry',
    'npm',
    '--package',
    'hubdep',
    '--for',
    'registry',
    '--reason',
    'x',
    '--expires',
    '2026-01-01T00:00:00Z',
  ]);
  t.equal(other.code, 1);
  t.match(other.stderr, /expires_at must lie in the future/);
  const rejected = await cli(carol, [
    'waivers',
    'request',
    `block:${blockId}`,
    '--registry',
    'npm',
    '--package',
    'hubdep',
    '--for',
    'registry',
    '--reason',
    'everyone',
    '--expires',
    '90m',
    '--json',
  ]);
  const rid = String(json(rejected).id);
  t.match(json(await cli(alice, ['waivers', 'reject', rid, '--json'])), { state: 'rejected', decided_by: 'alice' });
  t.equal(await tarball(bob), 403);
});

t.test('usage errors', async (t) => {
  await expectUsageErrors(
    t,
    [
      [['waivers'], /waivers needs a sub-command/, 'waivers'],
      [
        [
          'waivers',
          'request',
          'block:1',
          '--registry',
          'npm',
          '--package',
          'x',
          '--for',
          'group:ops',
          '--reason',
          'r',
          '--expires',
          '1d',
        ],
        /--for group:ops: expected user:<id>, token:<id> or registry/,
        'waivers request',
      ],
      [
        ['waivers', 'request', 'block:1', '--registry', 'npm', '--for', 'registry', '--reason', 'r', '--expires', '1d'],
        /--package/,
        'waivers request',
      ],
      [['waivers', 'approve', '1; drop'], /is not a waiver id/, 'waivers approve'],
    ],
    { HUB_URL: s.url, HUB_TOKEN: alice },
  );
});
