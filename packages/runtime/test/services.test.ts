import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { storeTiers } from '@hub/testkit';
import { createDb, migrate, runtimeMigrations } from '../src/internal.js';
import { createHubServices } from '../src/services/hub-services.js';

/** The services are their tables' only writers and keep their own memos current: no caller invalidates anything. */
const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

async function services(t: Test, database: Parameters<typeof createDb>[0]) {
  const db = createDb(database);
  t.teardown(() => db.destroy());
  await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }]);
  let authDrops = 0;
  return {
    db,
    s: createHubServices(db, { refresh: async () => void authDrops++ }, { flush: async () => {} }),
    authDrops: () => authDrops,
  };
}

for (const store of tiers) {
  t.test(`${store.name}: blocks are seen at once, refused twice, lifted by their own actor only`, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-services-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const { s } = await services(t, await store.database(t, dir));
    const blocks = s.blocks;
    const pad100 = { name: 'left-pad', version: '1.0.0' };
    t.equal(blocks.findNow('npm', pad100), undefined, 'nothing in memory yet: findNow cannot tell');
    t.equal(
      await blocks.find('npm', { name: 'left-pad', version: '1.0.0' }),
      null,
      'nothing blocked (and now remembered)',
    );
    t.equal(blocks.findNow('npm', pad100), null, 'remembered: findNow answers as find did');
    const added = await blocks.add({
      registry: 'npm',
      package_name: 'left-pad',
      version: '1.0.0',
      reason: 'r',
      by: 'sec',
    });
    t.match(added, { id: Number, version: '1.0.0', blocked_by: 'sec' });
    t.match(
      await blocks.find('npm', { name: 'left-pad', version: '1.0.0' }),
      { blocked_by: 'sec' },
      'the memo is current without an invalidate()',
    );
    t.match(blocks.findNow('npm', pad100), { blocked_by: 'sec' }, 'findNow sees the block from memory too');
    t.equal(
      await blocks.add({ registry: 'npm', package_name: 'left-pad', version: '1.0.0', reason: null, by: 'other' }),
      'exists',
    );
    t.same(
      await blocks.addVersions({
        registry: 'npm',
        package_name: 'left-pad',
        versions: ['1.0.0', '1.1.0'],
        reason: 'gone',
        by: 'audit',
      }),
      ['1.1.0'],
      'only versions no block covers',
    );
    t.same(await blocks.lift({ registry: 'npm', package_name: 'left-pad', by: 'audit' }), {
      lifted: ['1.1.0'],
      othersStay: true,
    });
    t.equal(await blocks.find('npm', { name: 'left-pad', version: '1.1.0' }), null);
    t.equal((await blocks.list({ blocked_by: 'sec' })).length, 1);
    t.match(await blocks.remove((added as { id: number }).id), { version: '1.0.0' });
    t.equal(await blocks.find('npm', { name: 'left-pad', version: '1.0.0' }), null, 'removed, and seen at once');
    t.equal(blocks.findNow('npm', pad100), null, 'and by findNow');
    t.equal(await blocks.remove(999_999), null);
  });

  t.test(`${store.name}: retention holds are kept per reason, lapse when they expire`, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-services-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const { s } = await services(t, await store.database(t, dir));
    await s.holds.hold('npm', 'left-pad', '1.0.0', 'lockfile:release');
    await s.holds.hold('npm', 'left-pad', '1.0.0', 'admin');
    await s.holds.hold('npm', 'left-pad', '1.0.0', 'admin', null);
    await s.holds.hold('npm', 'is-even', '1.0.0', 'lockfile:old', new Date(Date.now() - 1000));
    t.ok(await s.holds.isHeld('npm', 'left-pad', '1.0.0'));
    t.notOk(await s.holds.isHeld('npm', 'is-even', '1.0.0'), 'an expired hold keeps nothing');
    t.same([...(await s.holds.heldKeys('npm'))], ['left-pad\u00001.0.0']);
    t.equal(await s.holds.release('lockfile:release'), 1);
    t.ok(await s.holds.isHeld('npm', 'left-pad', '1.0.0'), 'another reason still holds it');
    t.equal(await s.holds.release('admin', { registry: 'npm', package: 'left-pad' }), 1);
    t.notOk(await s.holds.isHeld('npm', 'left-pad', '1.0.0'));
    t.same((await s.holds.list('npm')).length, 0);
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
    t.equal(authDrops(), 5, "every change to a user or token refreshes this replica's token lookups");
  });
}
