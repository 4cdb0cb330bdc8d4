import path from 'node:path';
import t from 'tap';
import { ConfigError, createHub, definePlugin, StartupError } from '../src/index.js';
import { createLogger } from '../src/internal.js';
import { filesKind } from '@hub/testkit';

/** The smallest hub.toml: SQLite and blobs under `dir`. */
const storeConfig = (dir: string) =>
  `[database]\nclient = "sqlite"\nfilename = "${path.join(dir, 'hub.db')}"\n[storage]\nkind = "fs"\npath = "${path.join(dir, 'blobs')}"\n`;

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
    configText: storeConfig(dir),
    env: { HUB_ADMIN_TOKEN: 'hub_startup_test_0123456789abcdef0' },
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

t.test('a cool-down on a kind that cannot tell publish times is refused at start, naming the key', async (t) => {
  const dir = t.testdir({});
  const err = await createHub({
    plugins: [filesKind],
    configText: `${storeConfig(dir)}[[registries]]\nname = "f"\ntype = "files"\nupstream = "http://127.0.0.1:9"\n[registries.security]\nmin_release_age_secs = 86400\n`,
    env: { HUB_ADMIN_TOKEN: 'hub_startup_test_0123456789abcdef0' },
    logger: createLogger({ level: 'silent' }),
    print: () => {},
  }).then(
    () => null,
    (e: unknown) => e,
  );
  t.type(err, StartupError);
  t.match(err, {
    code: 'unsupported',
    message:
      /^registries\[0\]\.security\.min_release_age_secs: the files kind cannot tell when a version was published/,
  });
});

t.test(
  'a HUB_ADMIN_TOKEN shorter than 32 characters stops the start with a config error naming it (issue 10)',
  async (t) => {
    const dir = t.testdir({});
    const start = (token: string) =>
      createHub({
        plugins: [],
        configText: storeConfig(dir),
        env: { HUB_ADMIN_TOKEN: token },
        logger: createLogger({ level: 'silent' }),
        print: () => {},
      }).then(
        (hub) => hub,
        (e: unknown) => e,
      );
    const err = await start('hub_short_admin_token');
    t.type(err, ConfigError);
    t.match(err, { key: 'HUB_ADMIN_TOKEN', message: /^HUB_ADMIN_TOKEN: must be at least 32 characters \(got 21\)/ });
    t.notMatch((err as Error).message, /hub_short_admin_token/, 'the message never repeats the secret');
    const hub = await start('x'.repeat(32));
    t.notOk(hub instanceof Error, '32 characters start');
    await (hub as { close(): Promise<void> }).close();
  },
);

t.test(
  'a local or hybrid registry without a publishing plugin is refused at start, naming the key (issue 11)',
  async (t) => {
    const dir = t.testdir({});
    const registries =
      '[[registries]]\nname = "f"\ntype = "files"\nupstream = "http://127.0.0.1:9"\n[[registries]]\nname = "mine"\ntype = "files"\nmode = "hybrid"\nupstream = "http://127.0.0.1:9"\n';
    const start = (plugins: Parameters<typeof createHub>[0]['plugins'], text: string) =>
      createHub({
        plugins,
        configText: `${storeConfig(dir)}${text}`,
        env: { HUB_ADMIN_TOKEN: 'hub_startup_test_0123456789abcdef0' },
        logger: createLogger({ level: 'silent' }),
        print: () => {},
      }).then(
        (hub) => hub,
        (e: unknown) => e,
      );
    const err = await start([filesKind], registries);
    t.type(err, StartupError);
    t.match(err, {
      code: 'plugin_requires',
      message: 'registries[1].mode: "hybrid" needs a publishing plugin (@hub/publishing); none is loaded',
    });

    const store = (id: string) =>
      definePlugin({ id, contract: 1, description: 'a publishing store', localStore: { create: () => ({}) as never } });
    t.match(
      await start([filesKind, store('one'), store('two')], registries),
      { code: 'plugin_duplicate', message: /"one" and "two" both provide the publishing store/ },
      'one store at most',
    );

    const hub = await start(
      [filesKind],
      '[[registries]]\nname = "f"\ntype = "files"\nupstream = "http://127.0.0.1:9"\n',
    );
    t.notOk(hub instanceof Error, 'a proxy-only hub starts without one');
    const { services, close } = hub as Awaited<ReturnType<typeof createHub>>;
    await t.rejects(
      services.local.packages(),
      { code: 'method_not_allowed', message: /needs the @hub\/publishing plugin/ },
      'and its store refuses',
    );
    await close();
  },
);
