import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { pluginConfigLoader } from '@hub/testkit';
import flags from '../src/index.js';

const { load, errorOf } = pluginConfigLoader(flags);

t.test("[[flag_sources]] is the plugin's own section; secret_env is resolved", async (t) => {
  t.same(load('').sections.flag_sources, []);
  t.match(load('[[flag_sources]]\nname = "osv"\nsecret_env = "S"\n', { S: 'x' }).sections.flag_sources, [
    { name: 'osv', secret: 'x', allow_unsigned_time: false },
  ]);
});

t.test('each source has a secret, a unique name, and no empty values', async (t) => {
  t.equal(
    errorOf('[[flag_sources]]\nname = "a"\n'),
    'hub.toml:1: flag_sources[0].secret: missing required key (or secret_env)',
  );
  t.equal(
    errorOf('[[flag_sources]]\nname = "a"\nsecret = "x"\n[[flag_sources]]\nname = "a"\nsecret = "y"\n'),
    'hub.toml:5: flag_sources[1].name: duplicate flag source name "a"',
  );
  t.equal(
    errorOf('[[flag_sources]]\nname = "a"\nsecret = ""\n'),
    'hub.toml:3: flag_sources[0].secret: must not be empty',
  );
});

t.test(
  'previous_secrets_env: a list of variable names resolves to previous_secrets; defaults of the per-source settings',
  async (t) => {
    const [src] = load('[[flag_sources]]\nname = "osv"\nsecret = "new"\nprevious_secrets_env = ["OLD1", "OLD2"]\n', {
      OLD1: 'a',
      OLD2: 'b',
    }).sections.flag_sources as any[];
    t.same(src.previous_secrets, ['a', 'b']);
    t.match(src, { max_effect: 'hard_block', registries: ['*'], max_flags_per_minute: 10000 });
    t.match(
      errorOf('[[flag_sources]]\nname = "osv"\nsecret = "new"\nprevious_secrets_env = ["OLD1", "UNSET"]\n'),
      /previous_secrets_env: environment variable (OLD1|UNSET) is not set/,
    );
    t.match(
      errorOf('[[flag_sources]]\nname = "osv"\nsecret = "new"\nprevious_secrets = ["new"]\n'),
      /previous_secrets: a previous secret must differ from the current one/,
    );
    t.match(errorOf('[[flag_sources]]\nname = "osv"\nsecret = "x"\nmax_effect = "nuke"\n'), /max_effect/);
    t.match(
      errorOf('[[flag_sources]]\nname = "osv"\nsecret = "x"\nmax_flags_per_minute = 0\n'),
      /max_flags_per_minute/,
    );
  },
);

t.test(
  '[[advisory_feeds]] is a second section of the plugin: url or directory, registries or types, defaults',
  async (t) => {
    const reg = '[[registries]]\nname = "npm-proxy"\ntype = "npm"\nupstream = "https://upstream.example"\n';
    const [feed] = load(
      `${reg}[[advisory_feeds]]\nname = "osv"\nurl = "https://advisories.example/all.zip"\necosystems = { npm = ["npm"] }\n`,
    ).sections.advisory_feeds as any[];
    t.match(feed, {
      name: 'osv',
      interval_secs: 3600,
      effect: 'warn',
      max_records: 200000,
      ecosystems: { npm: ['npm'] },
    });
    t.match(
      errorOf(`${reg}[[advisory_feeds]]\nname = "osv"\necosystems = {}\n`),
      /advisory_feeds\[0\]\.url: give url or directory, not both or neither/,
    );
    t.match(
      errorOf(`${reg}[[advisory_feeds]]\nname = "osv"\ndirectory = "/srv/osv"\necosystems = { PyPI = ["pypi"] }\n`),
      /advisory_feeds\[0\]\.ecosystems\.PyPI: "pypi" is neither a registry name nor a registry type/,
    );
    t.match(
      errorOf(`${reg}[[advisory_feeds]]\nname = "osv"\nurl = "ftp://x"\necosystems = {}\n`),
      /advisory_feeds\[0\]\.url/,
    );
    t.match(
      errorOf(`${reg}[[advisory_feeds]]\nname = "osv"\ndirectory = "/a"\necosystems = {}\ninterval_secs = 5\n`),
      /interval_secs/,
    );
    t.match(
      errorOf(
        `${reg}[[advisory_feeds]]\nname = "a"\ndirectory = "/a"\necosystems = {}\n[[advisory_feeds]]\nname = "a"\ndirectory = "/b"\necosystems = {}\n`,
      ),
      /duplicate advisory feed name "a"/,
    );
  },
);

t.test("the README's [[advisory_feeds]] example loads as written", async (t) => {
  const readme = fs.readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
  const section = readme.slice(readme.indexOf('## Advisory feeds (OSV)\n'));
  const toml = /```toml\n([\s\S]*?)```/.exec(section)![1]!;
  const others = ['pypi', 'maven', 'cargo', 'go', 'nuget', 'rubygems']
    .map((type) => `[[registries]]\nname = "${type}"\ntype = "${type}"\nupstream = "https://upstream.example"\n`)
    .join('');
  const feeds = load(`${toml.replace('https://<upstream base>', 'https://upstream.example')}\n${others}`).sections
    .advisory_feeds as any[];
  t.match(feeds, [
    {
      name: 'osv-npm',
      url: 'https://advisories.example/npm/all.zip',
      effect: 'gate',
      min_severity: 'moderate',
      ecosystems: { npm: ['npm'] },
    },
    {
      name: 'osv-local',
      directory: '/var/lib/hub/osv',
      effect: 'hard_block',
      ecosystems: { Go: ['go'] },
      max_records: 200000,
    },
  ]);
});
