import path from 'node:path';
import t from 'tap';
import { createHub, definePlugin } from '@hub/runtime';
import { createLogger } from '@hub/runtime/internal';
import audit from '../src/index.js';

const start = (dir: string, plugins: Parameters<typeof createHub>[0]['plugins']) =>
  createHub({
    plugins,
    configText: `[database]\nclient = "sqlite"\nfilename = "${path.join(dir, 'hub.db')}"\n[storage]\nkind = "fs"\npath = "${path.join(dir, 'blobs')}"\n`,
    env: { HUB_ADMIN_TOKEN: 'hub_kept_seam_test_0123456789abcdef' },
    logger: createLogger({ level: 'silent' }),
    print: () => {},
  });

t.test('two plugins providing kept listings: refused at start', async (t) => {
  const other = definePlugin({
    id: 'another-keeper',
    contract: 1,
    description: 'kept listings too',
    keptListings: audit.keptListings,
  });
  await t.rejects(start(t.testdir({}), [audit, other]), {
    name: 'StartupError',
    code: 'plugin_duplicate',
    message: /"audit" and "another-keeper" both provide kept listings/,
  });
});

t.test("the table is the audit's: a hub without it has none, and keeps nothing", async (t) => {
  const hub = await start(t.testdir({}), []);
  t.teardown(() => hub.close());
  t.notOk(await hub.db.schema.hasTable('kept_listings'));
  const withAudit = await start(t.testdir({}), [audit]);
  t.teardown(() => withAudit.close());
  t.ok(await withAudit.db.schema.hasTable('kept_listings'));
});
