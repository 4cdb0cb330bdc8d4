import t from 'tap';
import { groupPart, mergeContext } from '@hub/testkit';
import type { Reply } from '@hub/runtime';
import cargo from '../src/index.js';
import { fixture } from './setup.js';

const merge = cargo.group!.merge.index!;
const match = cargo.routes.find((r) => r.id === 'index')!.match(['registry', 'cf', 'g-', 'cfg-if'])!;
const lines = (r: Reply) => (r.body as Buffer).toString('utf8').split('\n').filter(Boolean);
const vers = (r: Reply) => lines(r).map((l) => (JSON.parse(l) as { vers: string }).vers);
const real = fixture('index/cf/g-/cfg-if');
const line = (v: string, cksum: string) => JSON.stringify({ ...JSON.parse(real.toString()), vers: v, cksum });

t.test('lines by vers, first member wins byte for byte, ordered by version', async (t) => {
  const { rc } = mergeContext();
  const vendor = [
    line('1.0.0', 'f'.repeat(64)),
    line('0.1.10', 'a'.repeat(64)),
    line('0.1.9', 'b'.repeat(64)),
    line('2.0.0-alpha.1', 'c'.repeat(64)),
  ].join('\n');
  const res = await merge(rc, [groupPart('internal', real), groupPart('vendor', vendor)], match);
  t.same(vers(res), ['0.1.9', '0.1.10', '1.0.0', '2.0.0-alpha.1']);
  t.equal(
    lines(res)[2],
    real.toString().trim(),
    "1.0.0 is the first member's line, unchanged (its cksum is the one a download from it has)",
  );
  t.match(res.headers.etag, /^"[0-9a-f]{64}"$/);
  t.notOk(cargo.group!.merge.config, "config.json is the first member's (rendered with the group URL)");
});

t.test(
  'a version yanked (or unlisted) in an earlier member is offered from a later member that lists it',
  async (t) => {
    const { rc } = mergeContext();
    const yanked = JSON.stringify({ ...JSON.parse(real.toString()), yanked: true });
    const res = await merge(rc, [groupPart('a', yanked), groupPart('b', real), groupPart('c', yanked)], match);
    t.same(lines(res), [real.toString().trim()]);
    const both = await merge(rc, [groupPart('a', yanked), groupPart('b', yanked.replace('c7c3', 'ffff'))], match);
    t.same(lines(both), [yanked], 'yanked everywhere: the first member line');
  },
);

t.test(
  'a malformed member index (another crate, HTML) is left out with a warning; all malformed is a 502',
  async (t) => {
    const { rc, warnings } = mergeContext();
    const other = JSON.stringify({ name: 'serde', vers: '9.9.9', cksum: 'd'.repeat(64) });
    const res = await merge(rc, [groupPart('a', other), groupPart('b', '<html>'), groupPart('c', real)], match);
    t.same(vers(res), ['1.0.0']);
    t.equal(warnings.length, 2);
    await t.rejects(async () => merge(rc, [groupPart('a', other), groupPart('b', '')], match), {
      code: 'upstream_error',
    });
  },
);

t.test('hostile size: 20000 lines per member merge in n log n', async (t) => {
  const { rc } = mergeContext();
  const many = (from: number) =>
    Array.from(
      { length: 20000 },
      (_, i) => `{"name":"cfg-if","vers":"0.${from + i}.0","cksum":"${'a'.repeat(64)}"}`,
    ).join('\n');
  t.equal(lines(await merge(rc, [groupPart('a', many(0)), groupPart('b', many(10000))], match)).length, 30000);
});
