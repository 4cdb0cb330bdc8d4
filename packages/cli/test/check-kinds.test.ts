/**
 * Which kinds hub check offers: those with a clientCheck hook, in order, with options that cannot take
 * over hub check's own or another kind's; and the default distribution's hooks are all there.
 */
import t from 'tap';
import { defineKind, nameAtVersion, type ClientCheck, type RegistryKind } from '@hub/runtime';
import { checkable, checkableKinds, configFlag } from '../src/check-kinds.js';

const hook = (option: string): ClientCheck<string> => ({
  option,
  form: 'x',
  fallback: 'x',
  help: ['http: x'],
  parse: (text) => text,
  run: async () => ({ http: { result: 'pass', detail: 'x' }, tool: { result: 'skip', detail: 'x' } }),
});
const kind = (id: string, clientCheck?: ClientCheck<string>): RegistryKind =>
  defineKind({
    id,
    contract: 1,
    addressing: 'package',
    description: id,
    coordinate: { parse: () => null, format: (c) => c.name },
    routes: [],
    clientCheck,
  });

t.test('kinds with a hook, in the order given; the same kind twice counts once', async (t) => {
  const a = kind('alpha', hook('alpha-package'));
  const found = checkable([a, kind('no-hook'), kind('beta', hook('beta-file')), a]);
  t.same(
    found.map((k) => [k.id, k.check.option]),
    [
      ['alpha', 'alpha-package'],
      ['beta', 'beta-file'],
    ],
  );
});

t.test('a hook that would take over an option, or cannot be one, is refused with the kind named', async (t) => {
  t.throws(() => checkable([kind('url', hook('url-x'))]), /kind "url": --url is already an option of hub check/);
  t.throws(() => checkable([kind('a', hook('config'))]), /kind "a": --config is already an option of hub check/);
  t.throws(
    () => checkable([kind('a', hook('a-x')), kind('b', hook('a-x'))]),
    /kind "b": --a-x is already an option of kind "a"/,
  );
  t.throws(() => checkable([kind('a', hook('a-x')), kind('a', hook('a-y'))]), /two kinds "a" are loaded/);
  t.throws(() => checkable([kind('a', hook('--evil'))]), /"--evil" cannot be a hub check option/);
  t.throws(() => checkable([kind('Upper', hook('x'))]), /"Upper" cannot be a hub check option/);
  t.throws(
    () => checkable([kind('a', { ...hook('a-x'), run: undefined } as unknown as ClientCheck<string>)]),
    /clientCheck needs option, form, fallback, help and run/,
  );
  t.throws(
    () => checkable([kind('a', { ...hook('a-x'), parse: 'x' } as unknown as ClientCheck<string>)]),
    /and parse, if any, a function/,
  );
});

t.test("without its own parse, a check reads its coordinate with the kind's codec, and needs a version", async (t) => {
  const { option, help, run } = hook('acme-package');
  const rest: ClientCheck = { option, help, form: 'name@version', fallback: 'tool@1.0.0', run: (kit) => run(kit, '') };
  const acme = defineKind({
    id: 'acme',
    contract: 1,
    addressing: 'package',
    description: 'acme',
    coordinate: nameAtVersion({ split: 'last', isName: (n) => /^[a-z]+$/.test(n) }),
    routes: [],
    clientCheck: rest,
  });
  const [k] = checkable([acme]);
  t.same(k!.parse('tool@1.0.0'), { name: 'tool', version: '1.0.0' });
  t.match(k!.parse('tool'), /^name@version, such as /, 'a version is required');
  t.match(k!.parse('BAD@1'), /^name@version, such as /, "the kind's name rules apply");
});

t.test(
  'the default distribution offers the ten kinds `hub check` first had, in its order, then those added since (issue 17)',
  async (t) => {
    const kinds = await checkableKinds(undefined, {});
    t.same(
      kinds.map((k) => k.id),
      [
        'npm',
        'cargo',
        'go',
        'github',
        'openvsx',
        'vscode-marketplace',
        'maven',
        'terraform',
        'rubygems',
        'nuget',
        'oci',
        'pypi',
      ],
    );
  },
);

t.test('--config is found before the options are known', async (t) => {
  t.equal(configFlag(['--npm', 'npm', '--config', 'a.toml']), 'a.toml');
  t.equal(configFlag(['-c', 'b.toml']), 'b.toml');
  t.equal(configFlag(['--config=c.toml']), 'c.toml');
  t.equal(configFlag(['--npm', 'npm']), undefined);
  t.equal(configFlag(['--', '--config', 'd.toml']), undefined);
});
