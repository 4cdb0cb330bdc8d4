import path from 'node:path';
import t from 'tap';
import { filesKind } from '@hub/testkit';
import { ConfigError, loadConfig } from '../src/config/load.js';
import { createHub, StartupError } from '../src/index.js';
import { createLogger } from '../src/internal.js';

/** Group registries' keys (decision 0051): every mistake is named by its key, all of them in one pass. */
const toml = (...lines: string[]): string => `${lines.join('\n')}\n`;
const members = toml(
  '[[registries]]',
  'name = "npm-internal"',
  'type = "npm"',
  'mode = "local"',
  '[[registries]]',
  'name = "npm-public"',
  'type = "npm"',
  'upstream = "http://127.0.0.1:9"',
  '[[registries]]',
  'name = "maven"',
  'type = "maven"',
  'upstream = "http://127.0.0.1:9"',
);

function issues(text: string): Array<{ key?: string; message: string }> {
  try {
    loadConfig({ text });
  } catch (e) {
    if (e instanceof ConfigError) return e.issues.map((i) => ({ key: i.key, message: i.message }));
    throw e;
  }
  return [];
}

t.test('a valid group loads with its members, patterns and member rules', async (t) => {
  const c = loadConfig({
    text:
      members +
      toml(
        '[[registries]]',
        'name = "npm"',
        'type = "npm"',
        'mode = "group"',
        'members = ["npm-internal", "npm-public"]',
        'allow_upstream_names = ["@acme/public-*"]',
        '[[registries.member_rules]]',
        'member = "npm-public"',
        'exclude = ["@acme/*"]',
      ),
  });
  t.match(c.registries[3], {
    name: 'npm',
    mode: 'group',
    members: ['npm-internal', 'npm-public'],
    allow_upstream_names: ['@acme/public-*'],
    member_rules: [{ member: 'npm-public', exclude: ['@acme/*'] }],
  });
});

t.test('config errors name the key', async (t) => {
  const group = (...lines: string[]) =>
    issues(members + toml('[[registries]]', 'name = "npm"', 'type = "npm"', 'mode = "group"', ...lines));
  t.match(group(), [{ key: 'registries[3].members', message: /missing required key: mode "group" needs members/ }]);
  t.match(group('members = ["npm-internal"]'), [
    { key: 'registries[3].members', message: /2 to 16 members \(got 1\)/ },
  ]);
  t.match(group('members = ["npm-internal", "npm-gone"]'), [
    { key: 'registries[3].members[1]', message: /no registry named "npm-gone"/ },
  ]);
  t.match(group('members = ["npm-internal", "npm-internal"]'), [
    { key: 'registries[3].members[1]', message: /names "npm-internal" twice/ },
  ]);
  t.match(group('members = ["npm-internal", "maven"]'), [
    { key: 'registries[3].members[1]', message: /"maven" is of type "maven", the group of type "npm"/ },
  ]);
  t.match(group('members = ["npm-internal", "npm"]'), [
    { key: 'registries[3].members[1]', message: /cannot be its own member/ },
  ]);
  t.match(
    group('members = ["npm-internal", "npm-public"]', 'upstream = "http://127.0.0.1:9"', 'max_publish_bytes = 10'),
    [
      { key: 'registries[3].upstream', message: /not used by a group registry: set it on its members/ },
      { key: 'registries[3].max_publish_bytes', message: /not used by a group registry/ },
    ],
  );
  t.match(
    group(
      'members = ["npm-internal", "npm-public"]',
      '[[registries.member_rules]]',
      'member = "maven"',
      'include = ["x"]',
    ),
    [{ key: 'registries[3].member_rules[0].member', message: /"maven" is not one of this group's members/ }],
  );
  const nested = issues(
    members +
      toml(
        '[[registries]]',
        'name = "g1"',
        'type = "npm"',
        'mode = "group"',
        'members = ["npm-internal", "npm-public"]',
        '[[registries]]',
        'name = "g2"',
        'type = "npm"',
        'mode = "group"',
        'members = ["npm-internal", "g1"]',
      ),
  );
  t.match(nested, [
    {
      key: 'registries[4].members[1]',
      message: /"g1" is a group: a group's members are proxy, hybrid or local registries/,
    },
  ]);
  t.match(issues(members.replace('mode = "local"', 'mode = "local"\nmembers = ["npm-public"]')), [
    { key: 'registries[0].members', message: 'only used with mode = "group"' },
  ]);
});

t.test('a group of a kind without a listing merge is refused at start, naming the kind', async (t) => {
  const dir = t.testdir({});
  const text = toml(
    '[database]',
    'client = "sqlite"',
    `filename = "${path.join(dir, 'hub.db')}"`,
    '[storage]',
    `path = "${path.join(dir, 'blobs')}"`,
    '[[registries]]',
    'name = "a"',
    'type = "files"',
    'upstream = "http://127.0.0.1:9"',
    '[[registries]]',
    'name = "b"',
    'type = "files"',
    'upstream = "http://127.0.0.1:9"',
    '[[registries]]',
    'name = "x"',
    'type = "files"',
    'mode = "group"',
    'members = ["a", "b"]',
  );
  const err = await createHub({
    plugins: [filesKind],
    configText: text,
    env: { HUB_ADMIN_TOKEN: 'hub_group_test_0123456789abcdef0123' },
    logger: createLogger({ level: 'silent' }),
    print: () => {},
  }).then(
    (hub) => hub.close().then(() => null),
    (e: unknown) => e,
  );
  t.type(err, StartupError);
  t.match(err, {
    code: 'unsupported',
    message: 'registry "x": kind "files" cannot be a group: it has no listing merge (GroupSupport)',
  });
});
