import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createHub, type AnyPlugin } from '@hub/runtime';
import { defaultPlugins, pluginsForConfig, readCatalogue } from '../src/plugins.js';

const kindIds = (plugins: AnyPlugin[]) =>
  plugins
    .filter((p) => p.role === 'kind')
    .map((p) => p.id)
    .sort();
const pluginIds = (plugins: AnyPlugin[]) =>
  plugins
    .filter((p) => p.role === 'plugin')
    .map((p) => p.id)
    .sort();
const registry = (type: string, name = type) =>
  `[[registries]]\nname = "${name}"\ntype = "${type}"\nupstream = "http://127.0.0.1:9"\n`;

t.test('hub serve loads the kinds its registries name, and every other default plugin', async (t) => {
  const all = await defaultPlugins();
  const some = await pluginsForConfig({ configText: registry('npm') + registry('cargo') + registry('npm', 'npm2') });
  t.same(kindIds(some), ['cargo', 'npm']);
  t.same(pluginIds(some), pluginIds(all), 'admin, audit, flags, console and the rest all load');
  t.same(kindIds(await pluginsForConfig({ configText: '' })), [], 'no registries, no kinds');

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-plugins-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'hub.toml');
  fs.writeFileSync(file, registry('go'));
  t.same(kindIds(await pluginsForConfig({ configFile: file })), ['go'], 'from a config file');
});

t.test(
  'a config it cannot read, or a type no default kind provides, loads every kind so the runtime names the fault',
  async (t) => {
    const everyKind = readCatalogue().plugins.filter((p) => p.default && p.role === 'kind').length;
    t.equal(
      kindIds(await pluginsForConfig({ configText: '[[registries]\nname = ' })).length,
      everyKind,
      'a TOML syntax error',
    );
    const unknown = registry('npm') + registry('nonesuch');
    const plugins = await pluginsForConfig({ configText: unknown });
    t.equal(kindIds(plugins).length, everyKind, 'an unknown type');
    await t.rejects(
      createHub({ plugins, configText: `[database]\nclient = "sqlite"\nfilename = ":memory:"\n${unknown}` }),
      /registries\[1\]\.type: no loaded kind "nonesuch" \(loaded: .*cargo.*npm/,
      'the error lists every kind there is',
    );
  },
);
