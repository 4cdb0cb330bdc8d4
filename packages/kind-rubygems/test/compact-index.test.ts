import t from 'tap';
import { checkCompactIndex, filterInfo, filterVersions, parseInfo, versionsNames } from '../src/compact-index.js';
import { fixture } from './setup.js';

const versions = Buffer.from(
  [
    'created_at: 2024-01-01T00:00:00Z',
    '---',
    'a 1.0.0,1.1.0 aaaa1',
    'b 2.0.0 bbbb1',
    'a 1.2.0 aaaa2',
    'c 1.0,1.0-java cccc1',
    'a -1.1.0 aaaa3',
    '',
  ].join('\n'),
);

t.test('parseInfo: tokens, sha256 and runtime dependencies', async (t) => {
  t.same(parseInfo(fixture('upstream/info/hubdemo')), [
    {
      token: '1.0.0',
      deps: [{ name: 'hubdep', requirements: '~> 1.0' }],
      sha256: 'a137576a12082f2ca7600a8b788b4437497d703bd9d055901f2e5463e26af30d',
    },
    {
      token: '1.1.0',
      deps: [{ name: 'hubdep', requirements: '>= 1.0, < 2' }],
      sha256: '226a9b29c57a9a95fdbc62cedefead75879b71d48641b9f4f271e8097e7971f5',
    },
  ]);
  t.same(
    parseInfo(Buffer.from('---\n1.0 |checksum:nothex,ruby:>= 2\n\ngarbage\n')),
    [{ token: '1.0', deps: [] }],
    'a malformed checksum is no checksum',
  );
});

t.test('checkCompactIndex refuses HTML and documents without a --- line', async (t) => {
  t.equal(checkCompactIndex(fixture('upstream/versions')), null);
  t.equal(checkCompactIndex(fixture('upstream/info/hubdep')), null);
  t.equal(checkCompactIndex(Buffer.from('---\n')), null);
  t.match(checkCompactIndex(Buffer.from('<!DOCTYPE html><html>')), /HTML/);
  t.match(checkCompactIndex(Buffer.from('{"error":"x"}')), /separator/);
  t.match(checkCompactIndex(Buffer.from('')), /separator/);
});

t.test('filterInfo drops unlisted lines, a bare version with its platform builds', async (t) => {
  const info = Buffer.from('---\n1.0 |checksum:x\n1.0-java |checksum:y\n1.1 |checksum:z\n');
  t.equal(filterInfo(info, new Set()), info);
  t.equal(filterInfo(info, new Set(['9.9'])), info, 'same bytes when nothing listed is unlisted');
  t.equal(filterInfo(info, new Set(['1.0'])).toString(), '---\n1.1 |checksum:z\n');
  t.equal(filterInfo(info, new Set(['1.0-java'])).toString(), '---\n1.0 |checksum:x\n1.1 |checksum:z\n');
});

t.test('filterVersions: appended lines, yank markers, the md5 on the last line', async (t) => {
  t.same(versionsNames(versions), ['a', 'b', 'c']);
  t.equal(filterVersions(versions, new Map(), new Map()), versions);
  const out = filterVersions(versions, new Map([['a', new Set(['1.2.0'])]]), new Map([['a', 'NEWMD5']])).toString();
  t.equal(
    out,
    [
      'created_at: 2024-01-01T00:00:00Z',
      '---',
      'a 1.0.0,1.1.0 aaaa1',
      'b 2.0.0 bbbb1',
      'c 1.0,1.0-java cccc1',
      'a -1.1.0 NEWMD5',
      '',
    ].join('\n'),
    'the emptied line goes; the last line of a carries the new md5',
  );
  const noMd5 = filterVersions(versions, new Map([['a', new Set(['1.1.0'])]]), new Map()).toString();
  t.match(
    noMd5,
    /^a 1\.2\.0 aaaa3$/m,
    'without the served md5, the upstream latest md5 moves to the last remaining line',
  );
  t.notMatch(noMd5, /1\.1\.0/);
  const gone = filterVersions(versions, new Map([['a', new Set(['1.0.0', '1.2.0'])]]), new Map()).toString();
  t.notMatch(gone, /^a /m, 'every listed version of a unlisted: a is gone (1.1.0 was yanked)');
  t.match(
    filterVersions(versions, new Map([['c', new Set(['1.0'])]]), new Map()).toString(),
    /^b 2\.0\.0 bbbb1\n(?!c )/m,
    'c 1.0 covers 1.0-java: c is gone',
  );
});
