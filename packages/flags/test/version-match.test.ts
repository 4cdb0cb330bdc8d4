import t from 'tap';
import npm from '@hub/kind-npm';
import { defineKind, type RegistryKind } from '@hub/runtime';
import { createVersionMatchers } from '../src/version-match.js';

/** A kind without a versionRange hook, as path and forge kinds are. */
const pathKind = defineKind({
  id: 'pathlike',
  contract: 1,
  addressing: 'path',
  description: 'test',
  coordinate: { parse: () => null, format: () => '' } as never,
  routes: [],
});

t.test('flag ranges compile with the registry kind, once per kind and text', async (t) => {
  let parses = 0;
  const counting: RegistryKind = { ...npm, versionRange: (text) => (parses++, npm.versionRange!(text)) };
  const kinds: Record<string, RegistryKind> = { npm: counting, files: pathKind };
  const m = createVersionMatchers((r) => kinds[r]);
  t.equal(typeof m.compile('npm', '>=1.0.0 <2.0.0'), 'function');
  for (let i = 0; i < 1000; i++) m.covers('npm', '>=1.0.0 <2.0.0', '1.5.0');
  t.equal(parses, 1, 'parsed once, however many requests ask');
  t.ok(m.covers('npm', '>=1.0.0 <2.0.0', '1.0.0'));
  t.notOk(m.covers('npm', '>=1.0.0 <2.0.0', '2.0.0'));
  t.ok(m.covers('npm', '*', 'anything'), '* needs no parse');
  t.ok(m.covers('files', '*', 'a/b.txt'), 'a kind without the hook takes *');
  t.match(
    m.compile('files', '>=1.0'),
    /registry type pathlike takes "version" for one version, or version_range "\*"/,
    'and nothing else',
  );
  t.match(
    m.compile('npm', 'x'.repeat(300)),
    /at most 256 characters/,
    'over the length cap, before the kind parses it',
  );
  t.equal(parses, 1, 'the capped text never reached the kind');
  t.match(m.compile('nope', '1.0.0'), /not configured/);
  t.ok(
    m.covers('npm', 'not a range at all', '1.0.0'),
    'a stored range that no longer parses covers every version: fail closed',
  );
});
