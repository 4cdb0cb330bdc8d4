import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { storeTiers } from '@hub/testkit';
import { createDb, migrate, runtimeMigrations } from '../src/internal.js';
import { createHubServices } from '../src/services/hub-services.js';
import { createFsBlobStore } from '../src/storage/blobs/fs.js';

/** The services are their tables' only writers and keep their own memos current: no caller invalidates anything. */
const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

async function services(t: Test, database: Parameters<typeof createDb>[0]) {
  const db = createDb(database);
  t.teardown(() => db.destroy());
  await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }]);
  let authDrops = 0;
  const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-services-blobs-'));
  t.teardown(() => fs.rmSync(blobDir, { recursive: true, force: true }));
  const blobs = createFsBlobStore(blobDir);
  return { db, blobs, s: createHubServices(db, blobs, { invalidate: () => authDrops++ }, { flush: async () => {} }), authDrops: () => authDrops };
}

for (const store of tiers) {
  t.test(`${store.name}: blocks are seen at once, refused twice, lifted by their own actor only`, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-services-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const { s } = await services(t, await store.database(t, dir));
    const blocks = s.blocks;
    t.equal(await blocks.find('npm', { name: 'left-pad', version: '1.0.0' }), null, 'nothing blocked (and now remembered)');
    const added = await blocks.add({ registry: 'npm', package_name: 'left-pad', version: '1.0.0', reason: 'r', by: 'sec' });
    t.match(added, { id: Number, version: '1.0.0', blocked_by: 'sec' });
    t.match(await blocks.find('npm', { name: 'left-pad', version: '1.0.0' }), { blocked_by: 'sec' }, 'the memo is current without an invalidate()');
    t.equal(await blocks.add({ registry: 'npm', package_name: 'left-pad', version: '1.0.0', reason: null, by: 'other' }), 'exists');
    t.same(await blocks.addVersions({ registry: 'npm', package_name: 'left-pad', versions: ['1.0.0', '1.1.0'], reason: 'gone', by: 'audit' }), ['1.1.0'], 'only versions no block covers');
    t.same(await blocks.lift({ registry: 'npm', package_name: 'left-pad', by: 'audit' }), { lifted: ['1.1.0'], othersStay: true });
    t.equal(await blocks.find('npm', { name: 'left-pad', version: '1.1.0' }), null);
    t.equal((await blocks.list({ blocked_by: 'sec' })).length, 1);
    t.match(await blocks.remove((added as { id: number }).id), { version: '1.0.0' });
    t.equal(await blocks.find('npm', { name: 'left-pad', version: '1.0.0' }), null, 'removed, and seen at once');
    t.equal(await blocks.remove(999_999), null);
  });

  t.test(`${store.name}: unlisting, users and tokens`, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-services-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const { s, authDrops } = await services(t, await store.database(t, dir));
    const key = { registry: 'npm', package_name: 'hubdemo', version: '1.1.0' };
    t.same([...(await s.unlisting.hiddenVersions('npm', 'hubdemo'))], []);
    t.match(await s.unlisting.add(key, 'admin'), { ...key, unlisted_by: 'admin' });
    t.equal(await s.unlisting.add(key, 'admin'), 'exists');
    t.same([...(await s.unlisting.hiddenVersions('npm', 'hubdemo'))], ['1.1.0'], 'seen at once');
    t.match(await s.unlisting.remove(key), key);
    t.same([...(await s.unlisting.hiddenVersions('npm', 'hubdemo'))], []);

    t.match(await s.users.create({ id: 'ann', roles: ['reader'] }), { id: 'ann', roles: ['reader'], blocked: false });
    t.equal(await s.users.create({ id: 'ann', roles: ['admin'] }), 'exists', 'an existing user keeps its roles');
    t.match(await s.users.setBlocked('ann', true), { blocked: true });
    t.match(await s.users.setBlocked('ann', true), { blocked: true }, 'blocking twice still answers with the user');
    t.equal(await s.users.setBlocked('nobody', true), null);
    const { token, row } = await s.tokens.issue({ user_id: 'ann', permissions: ['source:read'] });
    t.match(token, /^hub_/);
    t.same(row.permissions, ['source:read']);
    const revoked = await s.tokens.revoke(row.id);
    t.ok(revoked?.revoked_at);
    t.equal((await s.tokens.revoke(row.id))?.revoked_at, revoked?.revoked_at, 'revoking twice keeps the first time');
    t.equal(authDrops(), 5, "every change to a user or token drops this replica's token lookups");
  });

  t.test(`${store.name}: published files, versions, tombstones and the quota`, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-services-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const { s, blobs } = await services(t, await store.database(t, dir));
    const local = s.local.forRegistry('files', { maxPublishBytes: 1000, quotaBytes: 2500 }, 'ci');
    const file = (v: string, body: Buffer) => ({ key: `tool/${v}/tool.bin`, coordinate: { name: 'tool', version: v }, contentType: 'application/octet-stream', body });

    const stored = await local.putFile(file('1.0.0', Buffer.alloc(1000, 1)));
    t.equal(stored.size, 1000);
    await local.addVersion('tool', '1.0.0', { note: 'kept for listings' });
    await t.rejects(local.addVersion('tool', '1.0.0'), { code: 'conflict' }, 'a version is published once');
    await t.rejects(local.putFile(file('1.0.0', Buffer.alloc(10))), { code: 'conflict' }, 'a file of a recorded version never changes');
    const early = await local.putFile(file('0.9.0', Buffer.alloc(100, 7)));
    const resent = await local.putFile(file('0.9.0', Buffer.alloc(200, 8)));
    t.not(resent.sha256, early.sha256, 'a file of a version never recorded (its manifest was refused) may be sent again');
    t.same(await local.file('tool/0.9.0/tool.bin'), { sha256: resent.sha256, size: 200 });
    t.equal(await blobs.readAll(early.sha256), null, 'the replaced bytes are gone');
    t.equal(await local.deleteVersion('tool', '0.9.0'), false, 'an unrecorded version is not deleted as a version');
    await t.rejects(local.putFile(file('9.9.9', Buffer.alloc(1001))), { code: 'payload_too_large' });
    t.match(await local.versions('tool'), [{ name: 'tool', version: '1.0.0', publisher: 'ci', yanked: false, meta: { note: 'kept for listings' } }]);
    t.ok(await local.ownsName('tool'), 'a published name is local_only by default');

    // Ten publishes at once against 1,300 bytes of quota left: one statement decides each, so at most one fits.
    const racing = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => local.putFile(file(`2.0.${i}`, Buffer.alloc(1000, i + 2)))));
    t.equal(racing.filter((r) => r.status === 'fulfilled').length, 1, 'one fits');
    t.ok(racing.every((r) => r.status === 'fulfilled' || (r.reason as { code?: string }).code === 'insufficient_storage'), 'the rest are 507');
    t.same(fs.readdirSync(blobs.tmpDir), [], 'no spool file left');

    t.ok(await local.updateVersion('tool', '1.0.0', { yanked: true, deprecated: 'use 2' }));
    t.match(await local.versions('tool'), [{ version: '1.0.0', yanked: true, deprecated: 'use 2' }]);
    t.ok(await local.deleteVersion('tool', '1.0.0'));
    t.same(await local.tombstones('tool'), ['1.0.0']);
    t.same(await local.versions('tool'), []);
    t.equal(await local.file('tool/1.0.0/tool.bin'), null, 'its file is gone');
    t.equal(await blobs.readAll(stored.sha256), null, 'and its blob');
    await t.rejects(local.putFile(file('1.0.0', Buffer.alloc(5))), { code: 'conflict' }, 'a deleted version is never published again');
    await t.rejects(local.addVersion('tool', '1.0.0'), { code: 'conflict' });
    const fitsAgain = await local.putFile(file('3.0.0', Buffer.alloc(1000, 9)));
    t.equal(fitsAgain.size, 1000, 'deleting gave its bytes back to the quota');
    t.match(await s.local.packages('files'), [{ registry: 'files', name: 'tool', local_only: true }]);
    t.ok(await s.local.setLocalOnly('files', 'tool', false));
    t.notOk(await local.ownsName('tool'));
  });
}
