import path from 'node:path';
import t from 'tap';
import { startTestHub } from '@hub/testkit';
import { createDb, migrate, runtimeMigrations } from '@hub/runtime/internal';
import publishing from '../src/index.js';
import { localPackages } from '../src/migrations/001_local_packages.js';

/** A database from before publishing was a plugin (the runtime's 008 created the tables) keeps its publications. */
t.test(
  'a database that ran runtime/008_local_packages starts with the plugin and keeps what was published',
  async (t) => {
    const dir = t.testdir();
    const db = createDb({ client: 'sqlite', filename: path.join(dir, 'hub.db') });
    // The runtime's old migration set: 008 was these same tables.
    await migrate(db, [{ id: 'runtime', migrations: { ...runtimeMigrations, '008_local_packages': localPackages } }]);
    await db('local_packages').insert({
      registry: 'files',
      name_sha256: 'a'.repeat(64),
      name: 'repo',
      local_only: true,
      meta: null,
      created_at: 1,
    });
    await db.destroy();

    const h = await startTestHub({ dir, plugins: [publishing], registries: [] });
    t.teardown(h.close);
    t.match(
      await h.hub.services.local.packages('files'),
      [{ registry: 'files', name: 'repo', local_only: true }],
      'the old rows are read',
    );
    const ran = (await h.hub.db('hub_migrations').select('name')).map((r: { name: string }) => r.name);
    t.ok(ran.includes('runtime/008_local_packages') && ran.includes('publishing/001_local_packages'), 'both recorded');
    const local = h.hub.services.local.forRegistry('files', { maxPublishBytes: 100, quotaBytes: 0 }, 'ci');
    await local.putFile({
      key: 'repo/1.0/a.bin',
      coordinate: { name: 'repo', version: '1.0' },
      contentType: 'application/octet-stream',
      body: Buffer.from('a'),
      addsVersion: {},
    });
    t.match(await local.versions('repo'), [{ version: '1.0', publisher: 'ci' }], 'and publishing goes on');
  },
);
