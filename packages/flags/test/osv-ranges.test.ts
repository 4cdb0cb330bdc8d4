/** OSV events to each kind's range syntax (decision 0066); the kinds' parsers take them in feeds.test.ts. */
import t from 'tap';
import { osvIntervals, rangesFor } from '../src/feeds/osv-ranges.js';

const events = (...e: Array<Record<string, string>>) => ({ ranges: [{ type: 'ECOSYSTEM', events: e }] });

t.test(
  'events become intervals: introduced 0, fixed, last_affected, never closed; GIT ranges are left out',
  async (t) => {
    t.same(
      osvIntervals(
        events(
          { introduced: '0' },
          { fixed: '1.2' },
          { introduced: '2.0' },
          { last_affected: '2.0.3' },
          { introduced: '3.0' },
        ),
      ),
      [
        { introduced: null, fixed: '1.2', lastAffected: null },
        { introduced: '2.0', fixed: null, lastAffected: '2.0.3' },
        { introduced: '3.0', fixed: null, lastAffected: null },
      ],
    );
    t.same(osvIntervals({ ranges: [{ type: 'GIT', events: [{ introduced: 'abc' }, { fixed: 'def' }] }] }), []);
    t.same(osvIntervals(events({ fixed: '1.0' })), [], 'a fix with nothing introduced opens nothing');
  },
);

t.test("each kind's syntax", async (t) => {
  const two = osvIntervals(
    events({ introduced: '1.0.0' }, { fixed: '1.2.0' }, { introduced: '2.0.0' }, { last_affected: '2.1.0' }),
  );
  t.same(rangesFor('npm', two), ['>=1.0.0 <1.2.0 || >=2.0.0 <=2.1.0']);
  t.same(rangesFor('pypi', two), ['>=1.0.0,<1.2.0', '>=2.0.0,<=2.1.0']);
  t.same(rangesFor('maven', two), ['[1.0.0,1.2.0),[2.0.0,2.1.0]']);
  t.same(rangesFor('nuget', two), ['[1.0.0,1.2.0)', '[2.0.0,2.1.0]']);
  t.same(rangesFor('cargo', two), ['>=1.0.0, <1.2.0', '>=2.0.0, <=2.1.0']);
  t.same(rangesFor('rubygems', two), ['>= 1.0.0, < 1.2.0', '>= 2.0.0, <= 2.1.0']);
  t.same(rangesFor('go', two), ['>=v1.0.0 <v1.2.0', '>=v2.0.0 <=v2.1.0']);
  t.same(rangesFor('maven', osvIntervals(events({ introduced: '0' }, { fixed: '2.0' }))), ['(,2.0)']);
  t.same(rangesFor('maven', osvIntervals(events({ introduced: '1.5' }))), ['[1.5,)']);
  t.same(rangesFor('npm', osvIntervals(events({ introduced: '0' }))), ['*'], 'every version');
  t.same(rangesFor('vsix', two), [], 'a kind without range syntax: the versions list instead');
  const many = osvIntervals(
    events(
      ...Array.from({ length: 20 }, (_, i): Array<Record<string, string>> => [
        { introduced: `${i}.0.0` },
        { fixed: `${i}.0.5` },
      ]).flat(),
    ),
  );
  t.equal(rangesFor('npm', many).length, 20, 'a joined range past 256 characters is split');
});
