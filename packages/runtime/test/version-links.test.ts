import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { storeTiers } from '@hub/testkit';
import { createDb, migrate, runtimeMigrations } from '../src/internal.js';
import { createBlocks } from '../src/services/blocks.js';

/** Blocks follow version links (decision 0045), on SQLite and, where HUB_TEST_MYSQL_URL is set, on MariaDB/MySQL. */
const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

function tempDir(t: Test): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-links-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const d = (c: string) => `sha256:${c.repeat(64)}`;

for (const store of tiers) {
  t.test(
    `${store.name}: a block follows named versions always, and parts only when every user is refused`,
    async (t) => {
      const db = createDb(await store.database(t, tempDir(t)));
      t.teardown(() => db.destroy());
      await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }]);
      const blocks = createBlocks(db);
      const find = async (v: string) => (await blocks.find('dock', { name: 'app', version: v }))?.version ?? null;
      // 2.0 -> index a -> images b, c; b holds layers x (own) and s (shared with image e, of tag 1.0).
      await blocks.link('dock', 'app', '2.0', [{ version: d('a'), relation: 'names' }]);
      await blocks.link('dock', 'app', d('a'), [
        { version: d('b'), relation: 'names' },
        { version: d('c'), relation: 'names' },
      ]);
      await blocks.link('dock', 'app', d('b'), [
        { version: d('x'), relation: 'part' },
        { version: d('s'), relation: 'part' },
      ]);
      await blocks.link('dock', 'app', '1.0', [{ version: d('e'), relation: 'names' }]);
      await blocks.link('dock', 'app', d('e'), [{ version: d('s'), relation: 'part' }]);
      // Repeating a link (another replica, or this one after a restart) is harmless.
      await createBlocks(db).link('dock', 'app', d('b'), [{ version: d('x'), relation: 'part' }]);

      t.equal(await find(d('a')), null, 'nothing blocked: nothing refused');
      await blocks.add({ registry: 'dock', package_name: 'app', version: '2.0', reason: 'cve', by: 'admin' });
      for (const v of [d('a'), d('b'), d('c'), d('x')])
        t.equal(await find(v), '2.0', `${v.slice(7, 8)} is refused through 2.0`);
      t.equal(await find(d('s')), null, 'the shared part, which image e (not blocked) also uses, stays served');
      t.equal(await find(d('e')), null, 'the other image is served');
      t.equal(await find('1.0'), null, 'and its tag');

      await blocks.add({ registry: 'dock', package_name: 'app', version: d('e'), reason: 'also', by: 'admin' });
      t.ok(await find(d('s')), 'once every image using the shared part is blocked, it is refused too');

      await blocks.lift({ registry: 'dock', package_name: 'app', by: 'admin' });
      t.equal(await find(d('x')), null, 'lifted: served again');
      t.equal(await find(d('a')), null);
      t.equal(
        (await blocks.find('other', { name: 'app', version: d('a') }))?.version ?? null,
        null,
        'links belong to their registry',
      );
    },
  );
}
