import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import t from 'tap';
import { isArchiveError } from '@hub/runtime';
import rubygems from '../src/index.js';
import { MAX_DEPENDENCIES, parseGemspecDependencies } from '../src/gemspec-yaml.js';
import { fixture } from './setup.js';

const sbom = rubygems.sbom!;
const LIMITS = { maxBytes: 8 * 1024 * 1024, maxEntries: 100 };
const extract = (b: Buffer, limits = LIMITS) => sbom.extract(Readable.from([b]), limits);
const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e,
  );

/** A minimal ustar archive. */
function tar(entries: Array<[string, Buffer]>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, data] of entries) {
    const h = Buffer.alloc(512);
    h.write(name, 0, 100);
    h.write('0000644\0', 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
    h.write('00000000000\0', 136);
    h.write('        ', 148);
    h.write('0', 156);
    h.write('ustar\0' + '00', 257);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    parts.push(h, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  return Buffer.concat([...parts, Buffer.alloc(1024)]);
}

t.test('dependencies from the gemspec in metadata.gz of the real gems', async (t) => {
  t.same(await extract(fixture('upstream/gems/hubdemo-1.0.0.gem')), [
    { name: 'hubdep', range: '~> 1.0', scope: 'runtime' },
    { name: 'rake', range: '>= 12', scope: 'dev' },
  ]);
  t.same(await extract(fixture('upstream/gems/hubdemo-1.1.0.gem')), [
    { name: 'hubdep', range: '>= 1.0, < 2', scope: 'runtime' },
  ]);
  t.same(await extract(fixture('upstream/gems/hubdep-1.0.0.gem')), []);
  t.ok(sbom.appliesTo('gems/hubdemo/hubdemo-1.0.0.gem'));
  t.notOk(sbom.appliesTo('quick/hubdemo/hubdemo-1.0.0.gemspec.rz'));
});

t.test('the YAML reader: anchors and aliases, quoting, old layouts, junk', async (t) => {
  const yaml = `--- !ruby/object:Gem::Specification
name: x
version: &1 !ruby/object:Gem::Version
  version: 1.0.0
dependencies:
- !ruby/object:Gem::Dependency
  name: "a"
  requirement: &2 !ruby/object:Gem::Requirement
    requirements:
    - - ">="
      - &3 !ruby/object:Gem::Version
        version: '0'
  type: :runtime
  prerelease: false
  version_requirements: *2
- !ruby/object:Gem::Dependency
  name: b
  requirement: !ruby/object:Gem::Requirement
    requirements:
    - - "~>"
      - *1
    - - "!="
      - *3
  type: :development
- !ruby/object:Gem::Dependency
  name: 'c'
  requirement: !ruby/object:Gem::Requirement
    requirements:
    - - "="
      - !ruby/object:Gem::Version
        version: 2.0.0.pre
description: |
  dependencies:
  - name: not-a-dependency
email: x@example.com
`;
  t.same(parseGemspecDependencies(yaml), [
    { name: 'a', range: '>= 0', scope: 'runtime' },
    { name: 'b', range: '~> 1.0.0, != 0', scope: 'dev' },
    { name: 'c', range: '= 2.0.0.pre', scope: 'runtime' },
  ]);
  t.same(parseGemspecDependencies('--- !ruby/object:Gem::Specification\nname: x\ndependencies: []\n'), []);
  t.same(parseGemspecDependencies('not yaml at all \u0000\u0001'), []);
  t.same(
    parseGemspecDependencies('dependencies:\n- !ruby/object:Gem::Dependency\n  type: :runtime\n'),
    [],
    'a dependency without a name is skipped',
  );
});

t.test('the YAML reader refuses alias expansion (billion laughs) and stops at MAX_DEPENDENCIES', async (t) => {
  const laughs = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 9; i++)
    laughs.push(
      `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
        .fill(`*${String.fromCharCode(96 + i)}`)
        .join(',')}]`,
    );
  const bomb = `${laughs.join('\n')}\ndependencies:\n- name: x\n  requirement: { requirements: [[">=", *i]] }\n`;
  const started = Date.now();
  t.same(parseGemspecDependencies(bomb), [], 'nothing read from an expanding document');
  t.ok(Date.now() - started < 1_000, 'and quickly');

  const many = `dependencies:\n${Array.from({ length: MAX_DEPENDENCIES + 5 }, (_, i) => `- name: d${i}\n`).join('')}`;
  t.equal(parseGemspecDependencies(many).length, MAX_DEPENDENCIES);
});

t.test('caps: entries, inflated size; a gem without metadata has no dependencies', async (t) => {
  const meta = zlib.gzipSync(Buffer.from('dependencies:\n- !ruby/object:Gem::Dependency\n  name: a\n'));
  t.same(await extract(tar([['metadata.gz', meta]])), [{ name: 'a', range: '>= 0', scope: 'runtime' }]);
  t.same(await extract(tar([['data.tar.gz', zlib.gzipSync(Buffer.from('x'))]])), []);

  const many = tar([
    ...Array.from({ length: 20 }, (_, i) => [`f${i}`, Buffer.from('x')] as [string, Buffer]),
    ['metadata.gz', meta],
  ]);
  t.ok(
    isArchiveError(await failure(extract(many, { maxBytes: LIMITS.maxBytes, maxEntries: 5 })), 'ARCHIVE_LIMIT'),
    'too many entries',
  );

  const bomb = tar([['metadata.gz', zlib.gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x20))]]);
  t.ok(
    isArchiveError(await failure(extract(bomb, { maxBytes: 1024 * 1024, maxEntries: 10 })), 'ARCHIVE_LIMIT'),
    'metadata.gz inflating past the cap',
  );
  await t.rejects(extract(Buffer.from('<html>not a gem</html>'.padEnd(1024))), 'not a tar');
});
