import path from 'node:path';
import t from 'tap';
import { createHub } from '@hub/runtime';
import { createLogger } from '@hub/runtime/internal';
import cluster from '../src/index.js';

const start = (dir: string, plugins: Parameters<typeof createHub>[0]['plugins']) =>
  createHub({
    plugins,
    configText: `[database]\nclient = "sqlite"\nfilename = "${path.join(dir, 'hub.db')}"\n[storage]\nkind = "fs"\npath = "${path.join(dir, 'blobs')}"\n`,
    env: { HUB_ADMIN_TOKEN: 'hub_cluster_seam_test_0123456789abcdef' },
    logger: createLogger({ level: 'silent' }),
    print: () => {},
  });

t.test('two plugins providing the cluster: refused at start', async (t) => {
  const dir = t.testdir({});
  await t.rejects(start(dir, [cluster, { ...cluster, id: 'another-cluster', migrations: {} }]), {
    name: 'StartupError',
    code: 'plugin_duplicate',
    message: /"cluster" and "another-cluster" both provide the cluster/,
  });
});

t.test('without the plugin a hub runs alone: no heartbeat, no replicas section on the health card', async (t) => {
  const dir = t.testdir({});
  const hub = await start(dir, []);
  t.teardown(() => hub.close());
  t.notOk(await hub.db.schema.hasTable('replicas'), 'no replica tables');
  const withPlugin = await start(t.testdir({}), [cluster]);
  t.teardown(() => withPlugin.close());
  t.equal(
    Number((await withPlugin.db('replicas').count({ n: '*' }).first())?.n),
    1,
    'with it, the hub writes its heartbeat',
  );
});
