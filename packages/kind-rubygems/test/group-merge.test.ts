import zlib from 'node:zlib';
import t from 'tap';
import { groupPart, mergeContext, tableAsk } from '@hub/testkit';
import type { Reply, RouteMatch } from '@hub/runtime';
import rubygems from '../src/index.js';
import { md5hex } from '../src/compact-index.js';
import { encode, MSym } from '../src/marshal.js';
import { decodeSpecs, specsEntries } from '../src/specs.js';
import { MAX_INFO_ASKS } from '../src/group-merge.js';
import { fixture } from './setup.js';

const merges = rubygems.group!.merge;
const matchOf = (id: string, path: string): RouteMatch =>
  rubygems.routes.find((r) => r.id === id)!.match(path.split('/'))!;
const text = (r: Reply) => (r.body as Buffer).toString('utf8');
const linesOf = (body: string) => body.split('\n').filter(Boolean);

// Two members: `upstream` lists hubdemo 1.0.0 and 1.1.0; `later` also lists 1.2.0 (its /info has one more line).
const infoA = fixture('upstream/info/hubdemo');
const infoB = fixture('later/info/hubdemo');
const vendorVersions = 'created_at: 2024-02-01T00:00:00Z\n---\nvendorgem 0.1.0 0123456789abcdef0123456789abcdef\n';

t.test(
  '/info/<gem>: the first member as it is, then the versions it lacks; a byte range of the merged document',
  async (t) => {
    const { rc } = mergeContext();
    const m = matchOf('info', 'info/hubdemo');
    const res = await merges.info!(rc, [groupPart('upstream', infoA), groupPart('later', infoB)], m);
    t.same(res.body, infoB, "the merged lines are the later member's file here");
    t.equal(res.headers.etag, `"${md5hex(infoB)}"`, 'ETag: the MD5 bundler checks');
    const same = await merges.info!(rc, [groupPart('later', infoB), groupPart('upstream', infoA)], m);
    t.same(same.body, infoB, 'a member adding nothing changes no byte');
    const tail = await merges.info!(
      mergeContext({ headers: { range: `bytes=${infoA.length - 1}-` } }).rc,
      [groupPart('upstream', infoA), groupPart('later', infoB)],
      m,
    );
    t.equal(tail.status, 206, "bundler's tail request is answered from the merged document");
    t.same(tail.body, infoB.subarray(infoA.length - 1));
  },
);

t.test('/versions: every gem; a gem several members list gets one line with the MD5 of the merged /info', async (t) => {
  const { rc } = mergeContext();
  const parts = [
    groupPart('upstream', fixture('upstream/versions')),
    groupPart('later', fixture('later/versions')),
    groupPart('vendor', vendorVersions),
  ];
  const { ask, asked } = tableAsk({ 'info/hubdemo': [groupPart('upstream', infoA), groupPart('later', infoB)] });
  const res = await merges.versions!(rc, parts, matchOf('versions', 'versions'), ask);
  const body = text(res);
  t.ok(body.startsWith('created_at: 2024-01-01T00:00:00Z\n---\n'), "the first member's head");
  t.same(asked, ['info/hubdemo'], 'only the gem another member adds a version to is read again');
  const lines = linesOf(body.split('---\n')[1]!);
  t.same(lines, [
    `hubdemo 1.0.0,1.1.0,1.2.0 ${md5hex(infoB)}`,
    'hubdep 1.0.0 d24239d4b2806146f3bf662804236bf1',
    'hubmac 1.0-x86_64-darwin-19 958569faca1e99b14bf60470a0c4416f',
    'vendorgem 0.1.0 0123456789abcdef0123456789abcdef',
  ]);
  const info = await merges.info!(
    rc,
    [groupPart('upstream', infoA), groupPart('later', infoB)],
    matchOf('info', 'info/hubdemo'),
  );
  t.equal(
    lines[0]!.split(' ')[2],
    md5hex(info.body as Buffer),
    "the /versions MD5 is the merged /info's, so bundler's check passes",
  );
});

t.test(
  '/versions without GroupAsk, or past the bound: the first member MD5 (bundler then refetches that /info)',
  async (t) => {
    const { rc, warnings } = mergeContext();
    const parts = [groupPart('upstream', fixture('upstream/versions')), groupPart('later', fixture('later/versions'))];
    const res = await merges.versions!(rc, parts, matchOf('versions', 'versions'));
    t.match(text(res), 'hubdemo 1.0.0,1.1.0,1.2.0 a71197c81f7620e1c577081cd36938f3');
    // Many gems each extended by the second member: at most MAX_INFO_ASKS are read.
    const n = MAX_INFO_ASKS + 10;
    const a = `---\n${Array.from({ length: n }, (_, i) => `g${i} 1.0 ${'a'.repeat(32)}`).join('\n')}\n`;
    const b = `---\n${Array.from({ length: n }, (_, i) => `g${i} 2.0 ${'b'.repeat(32)}`).join('\n')}\n`;
    const { ask, asked } = tableAsk({});
    await merges.versions!(rc, [groupPart('a', a), groupPart('b', b)], matchOf('versions', 'versions'), ask);
    t.equal(asked.length, MAX_INFO_ASKS);
    t.ok(warnings.some((w) => w.includes(String(MAX_INFO_ASKS))));
  },
);

t.test('/versions: a yanked token (-1.0.0) leaves the listing of its member', async (t) => {
  const { rc } = mergeContext();
  const a = '---\nfoo 1.0.0,1.1.0 aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\nfoo -1.0.0 bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\n';
  const b = '---\nfoo 1.1.0 cccccccccccccccccccccccccccccccc\n';
  const res = await merges.versions!(rc, [groupPart('a', a), groupPart('b', b)], matchOf('versions', 'versions'));
  t.same(linesOf(text(res).slice(4)), ['foo 1.1.0 bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb']);
});

t.test('/names: the union, sorted', async (t) => {
  const { rc } = mergeContext();
  const res = await merges.names!(
    rc,
    [groupPart('a', fixture('upstream/names')), groupPart('b', '---\naaa\nhubdep\n')],
    matchOf('names', 'names'),
  );
  t.same(linesOf(text(res)), ['---', 'aaa', 'hubdemo', 'hubdep', 'hubmac']);
});

t.test('specs files: entries merged (latest_specs: the highest version per gem and platform)', async (t) => {
  const { rc } = mergeContext();
  const specs = fixture('upstream/specs.4.8.gz');
  const own = specsEntries(decodeSpecs(specs)!);
  const item = (name: string, version: string) => ({
    t: 'array' as const,
    items: [
      str(name),
      { t: 'userMarshal' as const, cls: sym('Gem::Version'), data: { t: 'array' as const, items: [str(version)] } },
      str('ruby'),
    ],
  });
  const other = zlib.gzipSync(
    encode({ t: 'array', items: [item('hubdemo', '1.1.0'), item('hubdemo', '9.0.0'), item('vendorgem', '0.1.0')] }),
  );
  const res = await merges.specs!(rc, [groupPart('a', specs), groupPart('b', other)], matchOf('specs', 'specs.4.8.gz'));
  const merged = specsEntries(decodeSpecs(res.body as Buffer)!).map((e) => `${e.name} ${e.token}`);
  t.same(merged, [...own.map((e) => `${e.name} ${e.token}`), 'hubdemo 9.0.0', 'vendorgem 0.1.0']);
  const latest = await merges.specs!(
    rc,
    [groupPart('a', fixture('upstream/latest_specs.4.8.gz')), groupPart('b', other)],
    matchOf('specs', 'latest_specs.4.8.gz'),
  );
  const l = specsEntries(decodeSpecs(latest.body as Buffer)!).map((e) => `${e.name} ${e.token}`);
  t.ok(l.includes('hubdemo 9.0.0') && !l.some((e) => e.startsWith('hubdemo 1.')), 'one latest hubdemo: 9.0.0');
});

t.test('malformed member documents are left out with a warning; all malformed is a 502', async (t) => {
  const { rc, warnings } = mergeContext();
  const m = matchOf('info', 'info/hubdemo');
  const res = await merges.info!(rc, [groupPart('broken', '<html>sorry</html>'), groupPart('later', infoB)], m);
  t.same(res.body, infoB);
  t.equal(warnings.length, 1);
  await t.rejects(async () => merges.info!(rc, [groupPart('a', '<html>'), groupPart('b', 'no separator')], m), {
    code: 'upstream_error',
  });
  const specs = await merges.specs!(
    rc,
    [groupPart('a', 'not gzip'), groupPart('b', fixture('upstream/specs.4.8.gz'))],
    matchOf('specs', 'specs.4.8.gz'),
  );
  t.ok(specsEntries(decodeSpecs(specs.body as Buffer)!).length > 0);
});

t.test('hostile size: two /versions of 50000 gems each merge in linear time', async (t) => {
  const { rc } = mergeContext();
  const doc = (from: number) =>
    `---\n${Array.from({ length: 50000 }, (_, i) => `g${from + i} 1.0 ${'a'.repeat(32)}`).join('\n')}\n`;
  const res = await merges.versions!(
    rc,
    [groupPart('a', doc(0)), groupPart('b', doc(25000))],
    matchOf('versions', 'versions'),
  );
  t.equal(linesOf(text(res)).length, 75001);
});

function str(s: string) {
  return { t: 'string' as const, bytes: Buffer.from(s) };
}
function sym(s: string) {
  return new MSym(Buffer.from(s));
}
