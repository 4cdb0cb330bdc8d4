/**
 * The hot reload's pieces on their own (decision 0057): the generation holder closes what a reload retired
 * only once no request that could hold it runs, and the key diff masks secrets and names added tables whole.
 */
import { EventEmitter } from 'node:events';
import type Koa from 'koa';
import t from 'tap';
import Type from 'typebox';
import { configFromObject } from '../src/internal.js';
import { diffConfig } from '../src/config/config-diff.js';
import { createLiveConfig } from '../src/config/live-config.js';
import { restartOnly } from '../src/config/live-keys.js';
import type { BoundRegistry } from '../src/server/registry-routes.js';

const load = (doc: Record<string, unknown>) =>
  configFromObject(structuredClone(doc), { file: 'hub.toml', env: { DB_URL: 'mysql://hub:db-password@db:3306/hub' } });

/** A request as the holder sees it: its response closes when the test says. */
function request() {
  const res = new EventEmitter();
  return { ctx: { res } as unknown as Koa.Context, end: () => res.emit('close') };
}

t.test('a retired generation is closed once the requests that started under it (or before) have ended', async (t) => {
  const config = load({});
  const reg = (name: string) => ({ info: { name } }) as unknown as BoundRegistry;
  const live = createLiveConfig(config, new Map([['a', reg('a')]]));
  const seen: string[] = [];
  const mw = live.track(async (ctx) => {
    seen.push([...live.registries.keys()].join(','));
    void ctx;
  });
  const first = request();
  await mw(first.ctx, async () => {});
  const closed: string[] = [];
  live.swap(config, new Map([['b', reg('b')]]), async () => void closed.push('gen1'));
  t.same([...live.registries.keys()], ['b'], 'the view reads the new generation at once');
  const second = request();
  await mw(second.ctx, async () => {});
  live.swap(config, new Map([['c', reg('c')]]), async () => void closed.push('gen2'));
  t.same(closed, [], 'nothing closes while a request from the first generation runs');
  second.end();
  t.same(closed, [], 'the second generation waits for the older request too');
  first.end();
  await new Promise((r) => setImmediate(r));
  t.same(closed, ['gen1', 'gen2'], 'both close once it ends');
  t.same(seen, ['a', 'b']);
  const third = request();
  await mw(third.ctx, async () => {});
  live.swap(config, new Map(), async () => void closed.push('gen3'));
  await live.retireAll();
  t.same(closed, ['gen1', 'gen2', 'gen3'], 'retireAll closes what is pending at once (the hub is closing)');
});

t.test(
  'the diff names changed keys, masks secrets and URL credentials, and names an added registry once',
  async (t) => {
    const before = load({
      database: { client: 'mysql', url_env: 'DB_URL' },
      registries: [
        { name: 'npm', type: 'npm', upstream: 'https://upstream.example/a', upstream_auth: { token: 'tok-1' } },
      ],
    });
    const after = load({
      database: { client: 'mysql', url_env: 'DB_URL' },
      server: { upstream_proxy: 'http://user:proxy-pass@proxy.example:3128' },
      registries: [
        { name: 'npm', type: 'npm', upstream: 'https://upstream.example/b', upstream_auth: { token: 'tok-2' } },
        {
          name: 'go',
          type: 'go',
          upstream: 'https://upstream.example/go',
          upstream_auth: { username: 'u', password: 'pw-3' },
        },
      ],
    });
    const changes = diffConfig(before, after);
    t.same(
      changes.map((c) => c.key),
      [
        'registries.go',
        'registries.npm.upstream',
        'registries.npm.upstream_auth.token',
        'registries.npm.upstreams',
        'server.upstream_proxy',
      ],
    );
    const text = JSON.stringify(changes);
    for (const secret of ['tok-1', 'tok-2', 'pw-3', 'proxy-pass', 'db-password'])
      t.notOk(text.includes(secret), `${secret} is masked`);
    t.match(changes.find((c) => c.key === 'registries.go')?.after, {
      name: 'go',
      upstream_auth: { username: 'u', password: '***' },
    });
    t.equal(changes.find((c) => c.key === 'server.upstream_proxy')?.after, 'http://***@proxy.example:3128');
    t.same(restartOnly(changes, new Set()), [], 'registries and the upstream proxy change live');
    const moved = diffConfig(
      before,
      load({
        ...structuredClone({ database: { client: 'mysql', url: 'mysql://other' } }),
        registries: [
          { name: 'npm', type: 'npm', upstream: 'https://upstream.example/a', upstream_auth: { token: 'tok-1' } },
        ],
      }),
    );
    t.same(restartOnly(moved, new Set()), [
      '[database] url cannot change while hub runs; restart to apply',
      '[database] url_env cannot change while hub runs; restart to apply',
    ]);
    t.equal(moved.find((c) => c.key === 'database.url')?.before, '***', 'a key with an _env twin is a secret');
  },
);

t.test(
  "a plugin's section inside a runtime section is compared as hub.toml nests it, without touching the config",
  async (t) => {
    const section = {
      section: 'auth.oidc',
      schema: Type.Object(
        { client_secret: Type.Optional(Type.String()) },
        { additionalProperties: false, default: {} },
      ),
    };
    const at = (secret: string) =>
      configFromObject({ auth: { oidc: { client_secret: secret } } }, { file: 'hub.toml', pluginSections: [section] });
    const before = at('first-oidc-secret');
    const changes = diffConfig(before, at('second-oidc-secret'));
    t.same(changes, [
      { key: 'auth.oidc.client_secret', path: ['auth', 'oidc', 'client_secret'], before: '***', after: '***' },
    ]);
    t.notOk('oidc' in before.auth, 'the config in force is not written');
    t.same(restartOnly(changes, new Set()), [
      '[auth] oidc.client_secret cannot change while hub runs; restart to apply',
    ]);
    t.same(restartOnly(changes, new Set(['auth.oidc'])), [], 'unless the plugin applies reloads');
  },
);
