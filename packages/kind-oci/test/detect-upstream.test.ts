import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import type { DetectContext } from '@hub/contract';
import oci from '../src/index.js';

const detect = oci.detectUpstream!;

/** A machine whose files are the test's: home files below `home`, system files at the paths given. */
function machine(home: string, system: Record<string, string>): DetectContext {
  return {
    run: async () => null,
    readHomeFile: async (...segments) => fs.promises.readFile(path.join(home, ...segments), 'utf8').catch(() => null),
    readSystemFile: async (p) => (system[p] ? fs.promises.readFile(system[p]!, 'utf8').catch(() => null) : null),
  };
}

t.test(
  'hub init reads /etc/containers/registries.conf: a mirror first, then the registry, then the search list',
  async (t) => {
    const dir = t.testdir({
      home: {},
      'mirror.conf': [
        'unqualified-search-registries = ["search.example.test"]',
        '',
        '[[registry]]',
        'prefix = "images.example.test"',
        'location = "images.example.test"',
        '',
        '[[registry.mirror]]',
        'location = "mirror.example.test:5000/cache" # the pull-through cache',
      ].join('\n'),
      'search.conf': 'unqualified-search-registries = ["search.example.test", "other.example.test"]\n',
      'junk.conf': '[[registry]]\nlocation = "not a host!"\n',
    });
    const at = (file: string) =>
      machine(path.join(dir, 'home'), { '/etc/containers/registries.conf': path.join(dir, file) });
    t.same(await detect(at('mirror.conf')), {
      upstream: 'https://mirror.example.test:5000',
      source: '/etc/containers/registries.conf',
    });
    t.same(await detect(at('search.conf')), {
      upstream: 'https://search.example.test',
      source: '/etc/containers/registries.conf',
    });
    t.equal(await detect(at('junk.conf')), null, 'no usable host');
    t.equal(await detect(machine(path.join(dir, 'home'), {})), null, 'no registries.conf');
    t.equal(
      await detect({ run: async () => null, readHomeFile: async () => null }),
      null,
      'a context that reads no system files',
    );
  },
);

t.test("the user's registries.conf wins over the machine's", async (t) => {
  const dir = t.testdir({
    home: { '.config': { containers: { 'registries.conf': '[[registry]]\nlocation = "mine.example.test"\n' } } },
    'etc.conf': '[[registry]]\nlocation = "machine.example.test"\n',
  });
  t.same(
    await detect(machine(path.join(dir, 'home'), { '/etc/containers/registries.conf': path.join(dir, 'etc.conf') })),
    {
      upstream: 'https://mine.example.test',
      source: '~/.config/containers/registries.conf',
    },
  );
});
