import { resolve } from 'node:path';
import t from 'tap';
import Type from 'typebox';
import { ConfigError } from '@hub/runtime';
import { builtInConfig } from '../src/built-in-config.js';

t.test('builtInConfig: one npm registry from npm_config_registry, anonymous download on loopback', async (tt) => {
  const cfg = builtInConfig({ npm_config_registry: 'http://127.0.0.1:9/npm/' });
  tt.equal(cfg.registries.length, 1);
  const reg = cfg.registries[0];
  tt.same(
    { name: reg?.name, type: reg?.type, mode: reg?.mode, upstream: reg?.upstream },
    { name: 'npm', type: 'npm', mode: 'proxy', upstream: 'http://127.0.0.1:9/npm' },
  );
  tt.same(cfg.auth.anonymous, ['source:read']);
  tt.equal(cfg.server.listen, '127.0.0.1:8080');
  tt.equal(cfg.database.filename, resolve(process.cwd(), 'data', 'hub.db'));
  tt.equal(cfg.storage.path, resolve(process.cwd(), 'data', 'blobs'));
  const withKind = builtInConfig(
    { npm_config_registry: 'http://127.0.0.1:9/' },
    new Map([
      ['npm', Type.Object({ x: Type.Integer({ default: 1, description: 'x' }) }, { additionalProperties: false })],
    ]),
  );
  tt.same(withKind.registries[0]?.extra, { x: 1 }, "the npm kind's defaults apply");

  const asked = builtInConfig({}, undefined, () => 'http://127.0.0.1:9/from-npm/');
  tt.equal(asked.registries[0]?.upstream, 'http://127.0.0.1:9/from-npm', 'without npm_config_registry, npm is asked');
  for (const env of [{}, { npm_config_registry: '' }]) {
    const e = (() => {
      try {
        builtInConfig(env, undefined, () => undefined);
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    tt.ok(e instanceof ConfigError, 'no registry: ConfigError');
    tt.match((e as Error).message, /hub init/);
    tt.match((e as Error).message, /npm config get registry/);
  }
});
