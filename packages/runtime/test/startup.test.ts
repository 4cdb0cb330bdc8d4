import path from 'node:path';
import t from 'tap';
import { createHub, createLogger, definePlugin, StartupError } from '../src/index.js';

t.test('a plugin whose setup fails stops the start with a StartupError and releases the database', async (t) => {
  const dir = t.testdir({});
  const broken = definePlugin({
    id: 'broken',
    contract: 1,
    description: 'fails on purpose',
    setup() {
      throw new Error('no licence key');
    },
  });
  const err = await createHub({
    plugins: [broken],
    configText: `[database]\nclient = "sqlite"\nfilename = "${path.join(dir, 'hub.db')}"\n[storage]\nkind = "fs"\npath = "${path.join(dir, 'blobs')}"\n`,
    env: { HUB_ADMIN_TOKEN: 'hub_startup_test' },
    logger: createLogger({ level: 'silent' }),
    print: () => {},
  }).then(
    () => null,
    (e: unknown) => e,
  );
  t.type(err, StartupError);
  t.match((err as Error).message, /plugin "broken" failed to start: no licence key/);
  // Nothing is left open: a leaked pool, timer or socket would keep this file running into tap's timeout.
});
