import t from 'tap';
import { defineKind, type RegistryKind } from '@hub/runtime';
import { canonicalCoordinate } from '@hub/admin-kit';
import npm from '@hub/kind-npm';
import { deb } from '@hub/kind-path';

/** A kind with case-insensitive ids and normalised versions, as nuget's. */
const folding: RegistryKind = defineKind({
  id: 'folding',
  contract: 1,
  addressing: 'package',
  description: 'test',
  coordinate: {
    parse(text) {
      const [name, version] = text.split('@');
      if (!name || !/^[a-z0-9.]+$/.test(name)) return null;
      return version === undefined
        ? { name }
        : { name, version: version.toLowerCase().replace(/^(\d+\.\d+)$/, '$1.0') };
    },
    format: (c) => (c.version ? `${c.name}@${c.version}` : c.name),
    normalizeName: (n) => n.toLowerCase(),
  },
  routes: [],
});

t.test('names and versions take the canonical form of their kind', async (t) => {
  const f = { name: 'nu', kind: folding };
  t.same(canonicalCoordinate(f, 'Newtonsoft.Json', undefined, undefined), { name: 'newtonsoft.json' });
  t.same(canonicalCoordinate(f, 'Newtonsoft.Json', '13.0-BETA', undefined), {
    name: 'newtonsoft.json',
    version: '13.0-beta',
  });
  t.same(canonicalCoordinate(f, 'X', '1.2', undefined), { name: 'x', version: '1.2.0' });
  t.throws(() => canonicalCoordinate(f, 'bad name!', undefined, undefined), { code: 'bad_request' });
  t.throws(
    () => canonicalCoordinate(f, 'x', undefined, 'some/path'),
    { code: 'bad_request' },
    'path is for path kinds',
  );
  const n = { name: 'npm', kind: npm };
  t.same(canonicalCoordinate(n, 'Evil', undefined, undefined), { name: 'Evil' }, 'npm does not fold case');
  t.same(canonicalCoordinate(n, '@scope/name', '1.0.0', undefined), { name: '@scope/name', version: '1.0.0' });
  t.throws(() => canonicalCoordinate(n, 'no spaces', undefined, undefined), { code: 'bad_request' });
  t.throws(() => canonicalCoordinate(n, 'a', '1.0.0', '1.0.0'), { code: 'bad_request' }, 'version or path, not both');
});

t.test('path-addressed kinds: package "repo" and the upstream path without a leading slash', async (t) => {
  const p = { name: 'apt', kind: deb as unknown as RegistryKind };
  t.same(canonicalCoordinate(p, 'repo', undefined, '/pool/main/h/hub_1.0_amd64.deb'), {
    name: 'repo',
    version: 'pool/main/h/hub_1.0_amd64.deb',
  });
  t.same(
    canonicalCoordinate(p, 'repo', 'dists/stable/Release', undefined),
    { name: 'repo', version: 'dists/stable/Release' },
    'version works as path',
  );
  t.same(canonicalCoordinate(p, 'repo', undefined, undefined), { name: 'repo' });
  for (const spelling of ['tools/évil tool.bin', 'tools/%C3%A9vil%20tool.bin', 'tools/e\u0301vil tool.bin'])
    t.same(
      canonicalCoordinate(p, 'repo', undefined, spelling),
      { name: 'repo', version: 'tools/%C3%A9vil%20tool.bin' },
      `one canonical spelling for ${JSON.stringify(spelling)}`,
    );
  for (const bad of ['a/../b', 'a//b', './a', '/', 'a\\b', 'a/\0', 'a;x', 'a/%252e%252e/b', 'a/%2e%2e/b'])
    t.throws(() => canonicalCoordinate(p, 'repo', undefined, bad), { code: 'bad_request' }, JSON.stringify(bad));
  t.throws(() => canonicalCoordinate(p, 'other', undefined, 'a'), { code: 'bad_request' }, 'the package is "repo"');
});
