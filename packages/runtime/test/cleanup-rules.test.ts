import t from 'tap';
import { genericVersionOrder, isGenericPrerelease } from '@hub/contract';
import {
  compileRules,
  describeRule,
  globMatcher,
  selectVersions,
  type HeldVersion,
} from '../src/cache/cleanup-rules.js';
import { ConfigError, loadConfig } from '../src/config/load.js';
import type { CleanupRuleConfig } from '../src/config/schema.js';

const DAY = 86_400_000;
const NOW = 1_000 * DAY;
const order = { compare: genericVersionOrder, isPrerelease: isGenericPrerelease };

/** A held version downloaded `idle` days ago and cached `age` days ago. */
const v = (pkg: string, version: string, idle: number, age = idle, extra: Partial<HeldVersion> = {}): HeldVersion => ({
  package: pkg,
  version,
  origin: 'upstream',
  bytes: 100,
  files: 1,
  lastAccessAt: NOW - idle * DAY,
  cachedAt: NOW - age * DAY,
  pinned: false,
  ...extra,
});

const rule = (r: Partial<CleanupRuleConfig>): CleanupRuleConfig => ({
  packages: ['*'],
  prereleases: 'same',
  include_published: false,
  ...r,
});
const removed = (
  versions: HeldVersion[],
  rules: CleanupRuleConfig[],
  held: (h: HeldVersion) => boolean = () => false,
) => selectVersions(versions, compileRules(rules), order, NOW, held).map((s) => `${s.version}#${s.rule}`);

t.test('globs: * spans any run (also /), ? one character, the rest literal, the whole name', async (t) => {
  const m = globMatcher(['@acme/*', 'left-pad', 'v?.x']);
  t.ok(m('@acme/tools'));
  t.ok(m('@acme/a/b'));
  t.ok(m('left-pad'));
  t.ok(m('v1.x'));
  t.notOk(m('v12.x'));
  t.notOk(m('vA-x'), 'a dot is literal');
  t.notOk(m('xleft-pad'));
  t.notOk(m('@acmeX'));
  t.ok(globMatcher(['*'])(''), '* matches the empty name');
  t.ok(globMatcher(['a*b*c'])('aXbYbZc'));
  t.notOk(globMatcher(['a*b*c'])('aXbYbZ'));
  t.ok(globMatcher(['*.*'])('a.b'), 'a literal dot after a star');
  // A crafted name against a many-star pattern: answered at once (a backtracking regex takes minutes).
  t.notOk(globMatcher(['*a*a*a*a*a*a*a*a*a*a*a*a*b'])('a'.repeat(512)));
});

t.test('keep_newest alone keeps the newest N by the version order, not by text or fetch time', async (t) => {
  const vs = [v('p', '1.9.0', 1), v('p', '1.10.0', 50), v('p', '1.2.0', 1), v('p', '0.1.0', 1)];
  t.same(removed(vs, [rule({ keep_newest: 2 })]).sort(), ['0.1.0#0', '1.2.0#0']);
  t.same(removed(vs, [rule({ keep_newest: 0 })]).length, 4, 'keep_newest = 0 keeps none');
});

t.test('age conditions of one rule must all hold; keep_newest of any covering rule keeps', async (t) => {
  const vs = [v('p', '1.0.0', 40, 400), v('p', '2.0.0', 40, 10), v('p', '3.0.0', 5, 400), v('p', '4.0.0', 100, 400)];
  t.same(removed(vs, [rule({ unused_days: 30, older_than_days: 365 })]), ['1.0.0#0', '4.0.0#0']);
  t.same(
    removed(vs, [rule({ unused_days: 30, keep_newest: 1 })]),
    ['1.0.0#0', '2.0.0#0'],
    '4.0.0 is the newest: kept by the rule itself',
  );
  t.same(
    removed(vs, [rule({ older_than_days: 100 }), rule({ keep_newest: 3 })]),
    ['1.0.0#0'],
    "another covering rule's keep_newest keeps too",
  );
  t.same(
    removed(vs, [rule({ unused_days: 30 }), rule({ keep_newest: 1 })]),
    ['1.0.0#0', '2.0.0#0', '3.0.0#1'],
    'a rule with keep_newest alone selects the rest; the first selecting rule is named',
  );
  t.same(removed(vs, [rule({ older_than_days: 1000 }), rule({ unused_days: 30 })]), ['1.0.0#1', '2.0.0#1', '4.0.0#1']);
});

t.test('pre-releases separately: only / exclude, and keep_newest counts each set apart', async (t) => {
  const vs = [
    v('p', '1.0.0', 1),
    v('p', '2.0.0-rc.1', 1),
    v('p', '2.0.0-rc.2', 1),
    v('p', '2.0.0', 1),
    v('p', '3.0-SNAPSHOT', 1),
  ];
  t.same(
    removed(vs, [rule({ prereleases: 'only', keep_newest: 1 })]).sort(),
    ['2.0.0-rc.1#0', '2.0.0-rc.2#0'],
    'the newest snapshot stays, releases untouched',
  );
  t.same(removed(vs, [rule({ prereleases: 'exclude', keep_newest: 1 })]), ['1.0.0#0']);
  t.same(
    removed(vs, [
      rule({ prereleases: 'exclude', keep_newest: 5 }),
      rule({ prereleases: 'only', unused_days: 1 }),
    ]).sort(),
    ['2.0.0-rc.1#1', '2.0.0-rc.2#1', '3.0-SNAPSHOT#1'],
  );
});

t.test('never removed: pinned, held, and published unless include_published', async (t) => {
  const vs = [
    v('p', '1.0.0', 90, 90, { pinned: true }),
    v('p', '2.0.0', 90),
    v('p', '3.0.0', 90, 90, { origin: 'local' }),
    v('p', '4.0.0', 90),
  ];
  t.same(
    removed(vs, [rule({ unused_days: 30 })], (h) => h.version === '2.0.0'),
    ['4.0.0#0'],
  );
  t.same(removed(vs, [rule({ unused_days: 30, include_published: true })]), ['2.0.0#0', '3.0.0#0', '4.0.0#0']);
  t.same(
    removed(vs, [rule({ keep_newest: 1 })]),
    ['2.0.0#0'],
    'a published version is not counted by a rule that does not cover it',
  );
});

t.test('packages narrows the rule; other packages are untouched', async (t) => {
  const vs = [v('@acme/a', '1.0.0', 90), v('lodash', '1.0.0', 90)];
  t.same(removed(vs, [rule({ packages: ['@acme/*'], unused_days: 30 })]), ['1.0.0#0']);
  t.equal(
    selectVersions(vs, compileRules([rule({ packages: ['@acme/*'], unused_days: 30 })]), order, NOW, () => false)[0]!
      .package,
    '@acme/a',
  );
});

t.test('describeRule names the index and the keys set', async (t) => {
  t.equal(
    describeRule(rule({ keep_newest: 3, unused_days: 30, prereleases: 'only', include_published: true }), 2),
    'cleanup[2]: packages = *, keep_newest = 3, unused_days = 30, prereleases = only, include_published',
  );
});

t.test('config: [[registries.cleanup]] tables with defaults, bad keys named with their line', async (t) => {
  const text = [
    '[[registries]]',
    'name = "npm"',
    'type = "npm"',
    'upstream = "https://upstream.example/"',
    'max_bytes = 1000',
    '[[registries.cleanup]]',
    'keep_newest = 3',
    '[[registries.cleanup]]',
    'packages = ["@acme/*"]',
    'prereleases = "only"',
    'unused_days = 30',
  ].join('\n');
  const reg = loadConfig({ text }).registries[0]!;
  t.equal(reg.max_bytes, 1000);
  t.same(reg.cleanup, [
    { packages: ['*'], keep_newest: 3, prereleases: 'same', include_published: false },
    { packages: ['@acme/*'], prereleases: 'only', unused_days: 30, include_published: false },
  ]);
  t.equal(loadConfig({ text }).cache.cleanup_interval_secs, 86400);
  const bad = (extra: string) => t.throws(() => loadConfig({ text: `${text}\n${extra}` }), ConfigError);
  bad('prereleases_only = true');
  bad('unused_days = 0');
  const e = (() => {
    try {
      loadConfig({ text: text.replace('prereleases = "only"', 'prereleases = "some"') });
    } catch (err) {
      return err as Error;
    }
  })();
  t.match(e?.message, /hub\.toml:10: registries\[0\]\.cleanup\[1\]\.prereleases/);
});
