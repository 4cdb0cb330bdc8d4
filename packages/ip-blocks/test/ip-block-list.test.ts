import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createDb, migrate, runtimeMigrations } from '@hub/runtime/internal';
import ipBlocks from '../src/index.js';
import { canonicalIpBlock, createIpBlockList } from '../src/ip-block-list.js';
import { canonicalIp } from '@hub/upstream';

t.test('addresses and ranges have one canonical spelling', async (t) => {
  const cases: Array<[string, string]> = [
    ['203.0.113.7', '203.0.113.7'],
    ['203.0.113.7/32', '203.0.113.7'],
    ['10.1.2.3/8', '10.0.0.0/8'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:db8::1/128', '2001:db8::1'],
    ['2001:db8:1:2::/32', '2001:db8::/32'],
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['::1', '::1'],
    ['::/0', '::/0'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::ffff:192.0.2.0/120', '192.0.2.0/24'],
    ['[2001:db8::5]', '2001:db8::5'],
  ];
  for (const [input, want] of cases) t.equal(canonicalIpBlock(input), want, input);
  t.equal(canonicalIp('::ffff:127.0.0.1'), '127.0.0.1', 'a mapped client address is IPv4');
  t.equal(canonicalIp('not an ip'), null);
});

/** A migrated SQLite database in a temp folder, removed after the test. */
async function migratedDb(t: { teardown(fn: () => unknown): void }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-ipblocks-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const db = createDb({ client: 'sqlite', filename: path.join(dir, 'hub.db') } as never);
  t.teardown(() => db.destroy());
  await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }, ipBlocks]);
  return db;
}

t.test('malformed addresses and ranges are 400 bad_request', async (t) => {
  const bad = [
    '',
    ' ',
    '10.0.0.256',
    '10.0.0.0/33',
    '::/129',
    '10.0.0.0/-1',
    '10.0.0.0/8/8',
    '1.2.3.4/ 8',
    '010.0.0.1',
    'abc',
    '1.2.3',
    "1.2.3.4'; DROP TABLE ip_blocks;--",
    'fe80::1%eth0',
    '2001:db8:::1',
    '1.2.3.4/08x',
    'x'.repeat(100),
  ];
  for (const input of bad) {
    t.throws(() => canonicalIpBlock(input), { code: 'bad_request', status: 400 }, JSON.stringify(input));
  }
});

t.test('the block list matches IPv4 and IPv6 clients against addresses and ranges', async (t) => {
  const db = await migratedDb(t);
  const list = createIpBlockList(db);
  t.equal(await list.find('203.0.113.7'), null, 'nothing blocked yet');
  for (const cidr of ['203.0.113.7', '198.51.100.0/24', '2001:db8::/32', '::1'])
    await db('ip_blocks').insert({ cidr, reason: null, created_by: 'test', created_at: 1 });
  list.invalidate();
  const hit = async (ip: string) => (await list.find(ip))?.cidr ?? null;
  t.equal(await hit('203.0.113.7'), '203.0.113.7');
  t.equal(await hit('203.0.113.8'), null);
  t.equal(await hit('198.51.100.255'), '198.51.100.0/24');
  t.equal(await hit('::ffff:198.51.100.9'), '198.51.100.0/24', 'a mapped IPv6 spelling does not dodge an IPv4 range');
  t.equal(await hit('2001:db8:ffff::1'), '2001:db8::/32');
  t.equal(await hit('2001:db9::1'), null);
  t.equal(await hit('::1'), '::1');
  t.equal(await hit('127.0.0.1'), null);
  await db('ip_blocks').delete();
  t.equal(await hit('203.0.113.7'), '203.0.113.7', 'within the memo a removal is not seen yet (at most a second)');
  list.invalidate();
  t.equal(await hit('203.0.113.7'), null, 'after invalidate() it is');
});

t.test('findNow answers like find while the memo is fresh, and not at all before it is read (#15)', async (t) => {
  const db = await migratedDb(t);
  await db('ip_blocks').insert({ cidr: '198.51.100.0/24', reason: 'abuse', created_by: 'test', created_at: 1 });
  const list = createIpBlockList(db);
  t.equal(list.findNow('198.51.100.9'), undefined, 'nothing read yet: no answer (the gate awaits find())');
  t.equal((await list.find('198.51.100.9'))?.cidr, '198.51.100.0/24');
  t.equal(list.findNow('198.51.100.9')?.reason, 'abuse', 'the same block, at once');
  t.equal(list.findNow('203.0.113.1'), null, 'another address: not blocked, at once');
  list.invalidate();
  t.equal(list.findNow('198.51.100.9'), undefined, 'a change made here drops the memo: read again');
});
