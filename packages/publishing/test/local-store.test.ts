import fs from 'node:fs';
import t from 'tap';
import { hubOnDatabase, startTestHub, storeTiers } from '@hub/testkit';
import publishing from '../src/index.js';

/** The publishing store on its own: atomic writes, tombstones and the quota (moved from the runtime's services test). */
const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

for (const store of tiers) {
  t.test(`${store.name}: published files, versions, tombstones and the quota`, async (t) => {
    const dir = t.testdir();
    const h = await startTestHub({
      dir,
      plugins: [publishing],
      registries: [],
      ...hubOnDatabase(await store.database(t, dir)),
    });
    t.teardown(h.close);
    const { services: s, blobs } = h.hub;
    const local = s.local.forRegistry('files', { maxPublishBytes: 1000, quotaBytes: 2500 }, 'ci');
    const file = (v: string, body: Buffer) => ({
      key: `tool/${v}/tool.bin`,
      coordinate: { name: 'tool', version: v },
      contentType: 'application/octet-stream',
      body,
    });

    const stored = await local.putFile(file('1.0.0', Buffer.alloc(1000, 1)));
    t.equal(stored.size, 1000);
    await local.addVersion('tool', '1.0.0', { note: 'kept for listings' });
    await t.rejects(local.addVersion('tool', '1.0.0'), { code: 'conflict' }, 'a version is published once');
    await t.rejects(
      local.putFile(file('1.0.0', Buffer.alloc(10))),
      { code: 'conflict' },
      'a file of a recorded version never changes',
    );
    const early = await local.putFile(file('0.9.0', Buffer.alloc(100, 7)));
    await t.rejects(
      local.putFile(file('0.9.0', Buffer.alloc(200, 8))),
      { code: 'conflict' },
      'a stored file of a version never recorded is never replaced with other bytes (decision 0044)',
    );
    t.same(
      await local.putFile(file('0.9.0', Buffer.alloc(100, 7))),
      early,
      'the same bytes again are taken (a retried upload)',
    );
    t.same(await local.file('tool/0.9.0/tool.bin'), { sha256: early.sha256, size: 100 });
    const other = s.local.forRegistry('files', { maxPublishBytes: 1000, quotaBytes: 2500 }, 'rival');
    await t.rejects(
      other.putFile(file('0.9.0', Buffer.alloc(100, 7))),
      { code: 'forbidden' },
      "a version being deployed is its first publisher's",
    );
    await t.rejects(other.addVersion('tool', '0.9.0'), { code: 'forbidden' }, 'nor can another publisher complete it');
    t.equal(
      await local.deleteVersion('tool', '0.9.0'),
      true,
      'a version never completed is deleted with its files (decision 0044)',
    );
    t.equal(await local.file('tool/0.9.0/tool.bin'), null);
    t.same(await local.tombstones('tool'), ['0.9.0'], 'and its number is tombstoned');
    t.equal(
      await local.deleteVersion('tool', '0.9.5'),
      false,
      'a version with neither a row nor a file is not there to delete',
    );
    await t.rejects(local.putFile(file('9.9.9', Buffer.alloc(1001))), { code: 'payload_too_large' });
    t.match(await local.versions('tool'), [
      { name: 'tool', version: '1.0.0', publisher: 'ci', yanked: false, meta: { note: 'kept for listings' } },
    ]);
    t.ok(await local.ownsName('tool'), 'a published name is local_only by default');

    // Ten publishes at once against 1,300 bytes of quota left: one statement decides each, so at most one fits.
    const racing = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => local.putFile(file(`2.0.${i}`, Buffer.alloc(1000, i + 2)))),
    );
    t.equal(racing.filter((r) => r.status === 'fulfilled').length, 1, 'one fits');
    t.ok(
      racing.every((r) => r.status === 'fulfilled' || (r.reason as { code?: string }).code === 'insufficient_storage'),
      'the rest are 507',
    );
    t.same(fs.readdirSync(blobs.tmpDir), [], 'no spool file left');

    t.ok(await local.updateVersion('tool', '1.0.0', { yanked: true, deprecated: 'use 2' }));
    t.match(await local.versions('tool'), [{ version: '1.0.0', yanked: true, deprecated: 'use 2' }]);
    t.ok(await local.deleteVersion('tool', '1.0.0'));
    t.same(await local.tombstones('tool'), ['0.9.0', '1.0.0']);
    t.same(await local.versions('tool'), []);
    t.equal(await local.file('tool/1.0.0/tool.bin'), null, 'its file is gone');
    t.equal(await blobs.readAll(stored.sha256), null, 'and its blob');
    await t.rejects(
      local.putFile(file('1.0.0', Buffer.alloc(5))),
      { code: 'conflict' },
      'a deleted version is never published again',
    );
    await t.rejects(local.addVersion('tool', '1.0.0'), { code: 'conflict' });
    const fitsAgain = await local.putFile(file('3.0.0', Buffer.alloc(1000, 9)));
    t.equal(fitsAgain.size, 1000, 'deleting gave its bytes back to the quota');
    t.match(await s.local.packages('files'), [{ registry: 'files', name: 'tool', local_only: true }]);
    t.ok(await s.local.setLocalOnly('files', 'tool', false));
    t.notOk(await local.ownsName('tool'));
  });
}
