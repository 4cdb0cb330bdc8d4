// A plugin's `deps` (decision 0069): setup gets the services it names and no others.
import path from 'node:path';
import t from 'tap';
import { createHub, definePlugin, StartupError, type Hub } from '../src/index.js';
import { createLogger } from '../src/internal.js';
import { PLUGIN_SERVICES } from '../src/contract/plugin-services.js';

const storeConfig = (dir: string) =>
  `[database]\nclient = "sqlite"\nfilename = "${path.join(dir, 'hub.db')}"\n[storage]\nkind = "fs"\npath = "${path.join(dir, 'blobs')}"\n`;
const start = (dir: string, plugins: Parameters<typeof createHub>[0]['plugins']) =>
  createHub({
    plugins,
    configText: storeConfig(dir),
    env: { HUB_ADMIN_TOKEN: 'hub_plugin_deps_test_0123456789abcdef' },
    logger: createLogger({ level: 'silent' }),
    print: () => {},
  });

t.test('setup gets the declared services, working, and no others', async (t) => {
  const seen: { keys?: string[]; services?: unknown; has?: boolean; listenAt?: string } = {};
  const plugin = definePlugin({
    id: 'narrow',
    contract: 1,
    description: 'declares three services',
    deps: ['db', 'log', 'router', 'config'],
    async setup(ctx) {
      seen.keys = Object.keys(ctx).sort();
      seen.has = 'services' in ctx;
      seen.listenAt = ctx.config.server.listen;
      seen.services = (() => {
        try {
          // @ts-expect-error services is not in deps: using it does not compile
          return ctx.services;
        } catch (e) {
          return e;
        }
      })();
      const { n } = (await ctx.db.raw('select 41 + 1 as n'))[0] as { n: number };
      ctx.log.info('narrow plugin set up');
      ctx.router.get('/narrow', (k) => {
        k.body = { n };
      });
    },
  });
  const hub: Hub = await start(t.testdir({}), [plugin]);
  t.teardown(() => hub.close());
  t.same(seen.keys, ['config', 'db', 'log', 'router']);
  t.equal(seen.has, false, 'an undeclared service is not in the context');
  t.equal(seen.listenAt, hub.config.server.listen, 'config reads the configuration in force');
  t.type(seen.services, Error);
  t.match(
    (seen.services as Error).message,
    /plugin "narrow" uses the service "services", which its deps do not declare; add "services" to its deps/,
  );
  const url = await hub.listen('127.0.0.1:0');
  const res = await fetch(`${url}/narrow`);
  t.equal(res.status, 200);
  t.same(await res.json(), { n: 42 }, 'the declared database and router work');
});

t.test('a setup reading an undeclared service stops the start, naming the plugin and the service', async (t) => {
  const plugin = definePlugin({
    id: 'reachy',
    contract: 1,
    description: 'reads what it did not declare',
    deps: ['log'],
    setup(ctx) {
      void (ctx as unknown as { db: unknown }).db;
    },
  });
  const err = await start(t.testdir({}), [plugin]).then(
    () => null,
    (e: unknown) => e,
  );
  t.type(err, StartupError);
  t.match(err, {
    code: 'plugin_load',
    message: /plugin "reachy" failed to start: plugin "reachy" uses the service "db", which its deps do not declare/,
  });
});

t.test('a dep that is not a service is refused at start-up, naming the plugin, before anything opens', async (t) => {
  const dir = t.testdir({});
  const plugin = definePlugin({ id: 'typo', contract: 1, description: 'misspells a dep', deps: ['db'], setup() {} });
  const wrong = { ...plugin, deps: ['db', 'database'] } as unknown as typeof plugin;
  const err = await start(dir, [wrong]).then(
    () => null,
    (e: unknown) => e,
  );
  t.type(err, StartupError);
  t.match(err, {
    code: 'plugin_contract',
    message: /^plugin "typo" declares the dep "database", which is not a service \(services: config, pluginConfig, db,/,
  });
  const { existsSync } = await import('node:fs');
  t.notOk(existsSync(path.join(dir, 'hub.db')), 'no database was opened');
});

t.test('a plugin without deps still gets the whole context (deprecated)', async (t) => {
  let keys: string[] = [];
  const plugin = definePlugin({
    id: 'legacy',
    contract: 1,
    description: 'written before deps',
    setup(ctx) {
      keys = Object.keys(ctx);
      t.ok(ctx.services.blocks, 'an undeclared service is there');
    },
  });
  const hub = await start(t.testdir({}), [plugin]);
  t.teardown(() => hub.close());
  t.same(keys.sort(), [...PLUGIN_SERVICES].sort());
});
