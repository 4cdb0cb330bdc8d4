import t from 'tap';
import { pluginConfigLoader } from '@hub/testkit';
import workload from '../src/workload/index.js';

const { load, errorOf } = pluginConfigLoader(workload);

const entry = (extra = '') =>
  `[[auth.workload]]\nname = "web"\nissuer = "https://ci.example.com"\naudience = "hub"\nroles = ["publisher"]\nclaims = { repository = "acme/web" }\n${extra}`;

t.test(
  "[[auth.workload]] is a table list inside [auth], defaulted, beside the runtime's own [auth] keys",
  async (t) => {
    const c = load(`[auth]\nanonymous = ["source:read"]\n\n${entry()}`);
    t.same(c.auth.anonymous, ['source:read']);
    t.same(c.sections['auth.workload'], [
      {
        name: 'web',
        issuer: 'https://ci.example.com',
        audience: 'hub',
        roles: ['publisher'],
        claims: { repository: 'acme/web' },
        token_ttl_secs: 900,
      },
    ]);
    t.same(load('').sections['auth.workload'], []);
  },
);

t.test('errors name the key inside [auth] and its line', async (t) => {
  t.equal(errorOf(entry('token_ttl_secs = 0\n')), 'hub.toml:7: auth.workload[0].token_ttl_secs: must be >= 1 (got 0)');
  t.match(
    errorOf(
      '[[auth.workload]]\nname = "web"\nissuer = "https://ci.example.com"\naudience = "hub"\nroles = ["publisher"]\nclaims = {}\n',
    ),
    /auth\.workload\[0\]\.claims/,
  );
  t.match(errorOf(entry('audiences = "x"\n')), /auth\.workload\[0\]\.audiences: unknown key/);
  t.match(
    errorOf(entry('registries = ["internal"]\n').replace('["publisher"]', '["publisher", "release-bot"]')),
    /auth\.workload\[0\]\.roles\[1\]: with a registry scope, roles must be built-in/,
  );
  t.match(errorOf(`${entry()}\n${entry()}`), /auth\.workload\[1\]\.name: duplicate workload name "web"/);
  t.match(
    errorOf(entry().replace('https://ci.example.com', 'ftp://ci')),
    /auth\.workload\[0\]\.issuer: must be an http/,
  );
});

t.test('without the plugin, [[auth.workload]] is an unknown key of [auth]', async (t) => {
  const { loadConfig } = await import('@hub/runtime');
  t.throws(() => loadConfig({ text: entry(), env: {} }), /auth\.workload: unknown key/);
});
