import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { storeTiers } from '@hub/testkit';
import { createDb, migrate, runtimeMigrations } from '../src/internal.js';
import { createHubServices } from '../src/services/hub-services.js';
import type { VersionKey } from '../src/policy/version-key.js';
import { artifactRows } from '../src/storage/artifact-rows.js';

/**
 * Blocks, unlisting and the package catalog compare versions by the registry's canonical spelling (decision
 * 0039), on every store tier. Here registry `py` spells like PEP 440 releases (trailing `.0`s and a `v`
 * dropped) and `npm` compares as written.
 */
const key: VersionKey = (registry, v) =>
  registry === 'py'
    ? v
        .toLowerCase()
        .replace(/^v/, '')
        .replace(/(\.0)+$/, '')
    : v;

const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

for (const store of tiers) {
  t.test(`${store.name}: one version in any spelling for blocks, unlisting and the catalog`, async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-spellings-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const db = createDb(await store.database(t, dir));
    t.teardown(() => db.destroy());
    await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }]);
    const s = createHubServices(db, { refresh: async () => {} }, { flush: async () => {} }, undefined, key);

    const block = await s.blocks.add({
      registry: 'py',
      package_name: 'demo',
      version: '1.0.0',
      reason: 'r',
      by: 'sec',
    });
    for (const v of ['1', '1.0', '1.0.0.0', 'V1.0.0'])
      t.match(
        await s.blocks.find('py', { name: 'demo', version: v }),
        { id: (block as { id: number }).id },
        `${v} is blocked`,
      );
    t.equal(await s.blocks.find('py', { name: 'demo', version: '1.0.1' }), null);
    t.equal(
      await s.blocks.add({ registry: 'py', package_name: 'demo', version: 'v1.0', reason: null, by: 'other' }),
      'exists',
      'the same block in another spelling',
    );
    t.same(
      await s.blocks.addVersions({
        registry: 'py',
        package_name: 'demo',
        versions: ['1.0', '2.0', '2.0.0'],
        reason: 'gone',
        by: 'audit',
      }),
      ['2.0'],
      'one new block per version',
    );
    t.same([...(await s.blocks.versionBlocks('py', 'demo')).keys()].sort(), ['1', '2']);
    t.same(
      await s.blocks.lift({ registry: 'py', package_name: 'demo', by: 'audit', versions: ['2'] }),
      { lifted: ['2.0'], othersStay: false },
      'lifted in another spelling',
    );
    t.equal(await s.blocks.find('npm', { name: 'demo', version: '1.0' }), null, 'another registry compares as written');
    await s.blocks.add({ registry: 'npm', package_name: 'demo', version: '1.0.0', reason: null, by: 'sec' });
    t.equal(await s.blocks.find('npm', { name: 'demo', version: '1.0' }), null, 'npm: 1.0 is not 1.0.0');

    t.not(await s.unlisting.add({ registry: 'py', package_name: 'demo', version: '3.0.0' }, 'a'), 'exists');
    t.equal(await s.unlisting.add({ registry: 'py', package_name: 'demo', version: '3' }, 'a'), 'exists');
    t.same([...(await s.unlisting.hiddenVersions('py', 'demo'))], ['3'], 'hidden versions by canonical spelling');
    t.match(
      await s.unlisting.remove({ registry: 'py', package_name: 'demo', version: 'v3.0' }),
      { version: '3.0.0' },
      'listed again in another spelling',
    );
    t.same([...(await s.unlisting.hiddenVersions('py', 'demo'))], []);

    await artifactRows(db).insert({
      registry: 'py',
      cache_key: 'files/demo/demo-1.0.tar.gz',
      package_name: 'demo',
      version: '1.0',
      blob_sha256: 'a'.repeat(64),
      size: 10,
      upstream_url: 'http://x/',
      content_type: 'application/gzip',
      fetched_at: Date.now(),
    } as never);
    await s.unlisting.add({ registry: 'py', package_name: 'demo', version: '1.0.0.0' }, 'a');
    const versions = await s.catalog.versions('py', 'demo');
    const one = versions.filter((v) => key('py', v.version) === '1');
    t.equal(one.length, 1, `one catalog entry for 1.0 (${versions.map((v) => v.version).join(', ')})`);
    t.match(one[0], { version: '1.0', held: true, unlisted: true }, 'in the held spelling, unlisted in another');
  });
}
