/**
 * The dependents walk on its own, over a real SQLite table made by the plugin's migration: a long chain and the
 * node cap, a range that does not parse, a flagged version hub does not know, cycles.
 */
import knex, { type Knex } from 'knex';
import t, { type Test } from 'tap';
import npm from '@hub/kind-npm';
import { flagMigrations } from '../src/migrations.js';
import { chainText, dependentsWalk, type ExposedNode } from '../src/exposure-walk.js';
import { createVersionMatchers } from '../src/version-match.js';

async function table(t: Test, deps: Array<[string, string, string, string]>) {
  const db = knex({ client: 'better-sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
  t.teardown(() => db.destroy());
  await flagMigrations['002_sbom']!.up(db);
  for (const [pkg, version, dep, range] of deps)
    await db('sbom_dependencies').insert({
      registry: 'npm',
      key_sha256: `${pkg}@${version}`,
      package_name: pkg,
      version,
      dep_name: dep,
      dep_range: range,
      scope: 'prod',
    });
  return db;
}
const ranges = createVersionMatchers(() => npm);
const root = (version: string | null): ExposedNode => ({
  name: 'leaf',
  version,
  depth: 0,
  parent: null,
  range: null,
  certain: version !== null,
});

async function walk(db: Knex, roots: ExposedNode[], depth: number, maxNodes = 50_000) {
  const w = dependentsWalk(db, ranges, 'npm', roots, { depth, maxNodes });
  const found: string[] = [];
  for await (const level of w.levels) for (const n of level) if (n.depth > 0) found.push(chainText(n));
  return { found, truncated: w.truncated() };
}

t.test('a chain of 12 links: depth bounds it, the node cap stops it and says so', async (t) => {
  const deps: Array<[string, string, string, string]> = [];
  for (let i = 1; i <= 12; i++) deps.push([`p${i}`, '1.0.0', i === 1 ? 'leaf' : `p${i - 1}`, '^1.0.0']);
  const db = await table(t, deps);
  t.same((await walk(db, [root('1.0.0')], 10)).found.length, 10, 'depth 10: ten links');
  t.equal(
    (await walk(db, [root('1.0.0')], 10)).found.at(-1),
    'p10@1.0.0 -> p9@1.0.0 -> p8@1.0.0 -> p7@1.0.0 -> p6@1.0.0 -> p5@1.0.0 -> p4@1.0.0 -> p3@1.0.0 -> p2@1.0.0 -> p1@1.0.0 -> leaf@1.0.0',
  );
  const capped = await walk(db, [root('1.0.0')], 10, 4);
  t.same(
    capped,
    {
      found: [
        'p1@1.0.0 -> leaf@1.0.0',
        'p2@1.0.0 -> p1@1.0.0 -> leaf@1.0.0',
        'p3@1.0.0 -> p2@1.0.0 -> p1@1.0.0 -> leaf@1.0.0',
      ],
      truncated: true,
    },
    'four versions kept (the root one of them), then it stops',
  );
});

t.test(
  'ranges: excluded, unparseable (may pull, carried up the chain), an unknown flagged version; cycles end',
  async (t) => {
    const db = await table(t, [
      ['a', '1.0.0', 'leaf', '^1.0.0'],
      ['b', '1.0.0', 'leaf', '^2.0.0'],
      ['c', '1.0.0', 'leaf', 'not a range !'],
      ['d', '1.0.0', 'c', '^1.0.0'],
      ['x', '1.0.0', 'a', '^1.0.0'],
      ['a', '1.0.0', 'x', '^1.0.0'],
      ['leaf', '1.5.0', 'x', '^1.0.0'],
    ]);
    const known = await walk(db, [root('1.0.0')], 10);
    t.same(
      known.found.sort(),
      [
        'a@1.0.0 -> leaf@1.0.0',
        'c@1.0.0 -> leaf@1.0.0 (may pull a flagged version)',
        'd@1.0.0 -> c@1.0.0 -> leaf@1.0.0 (may pull a flagged version)',
        'leaf@1.5.0 -> x@1.0.0 -> a@1.0.0 -> leaf@1.0.0',
        'x@1.0.0 -> a@1.0.0 -> leaf@1.0.0',
      ],
      "b's ^2.0.0 excludes 1.0.0; a <-> x ends; another version of the flagged package can be a dependent too",
    );
    t.equal(known.truncated, false);
    const unknown = await walk(db, [root(null)], 1);
    t.same(
      unknown.found.sort(),
      [
        'a@1.0.0 -> leaf ^1.0.0 (may pull a flagged version)',
        'b@1.0.0 -> leaf ^2.0.0 (may pull a flagged version)',
        'c@1.0.0 -> leaf not a range ! (may pull a flagged version)',
      ],
      'a range flag with no version known: every dependent may pull',
    );
  },
);
