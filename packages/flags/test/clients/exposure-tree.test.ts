/**
 * Exposure through the whole tree (issue 30): a tree of npm packages served by a loopback upstream, installed
 * through hub by two users with the real npm client, a flag on a deep dependency, and the report naming the
 * chain for each consumer; a dependency cycle; the depth limit; ranges that exclude the flagged version.
 * SQLite, and MariaDB with HUB_TEST_MYSQL_URL.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import admin from '@hub/admin';
import npm from '@hub/kind-npm';
import {
  hubOnDatabase,
  missingClient,
  npmEnv,
  npmFixtureHandler,
  parseCsv,
  signFlagRequest,
  startFixtureUpstream,
  startTestHub,
  storeTiers,
  type StoreTier,
} from '@hub/testkit';
import flags from '../../src/index.js';
import { writeNpmTree, type TreeVersion } from '../npm-tree.js';

const SECRET = 'tree-secret';
const hasNpm = await import('node:child_process').then(({ execFileSync }) => {
  try {
    execFileSync('npm', ['--version']);
    return true;
  } catch {
    return false;
  }
});

/**
 * top-app -> mid-a -> mid-b -> deep-leaf ^1.0.0; safe-top -> safe-b -> deep-leaf ^2.0.0 (never the flagged 1.0.0);
 * cyc-x <-> cyc-y, and cyc-x -> deep-leaf ~1.0.0.
 */
const TREE: TreeVersion[] = [
  { name: 'deep-leaf', version: '1.0.0' },
  { name: 'deep-leaf', version: '2.0.0' },
  { name: 'mid-b', version: '1.0.0', dependencies: { 'deep-leaf': '^1.0.0' } },
  { name: 'mid-a', version: '1.0.0', dependencies: { 'mid-b': '^1.0.0' } },
  { name: 'top-app', version: '1.0.0', dependencies: { 'mid-a': '^1.0.0' } },
  { name: 'safe-b', version: '1.0.0', dependencies: { 'deep-leaf': '^2.0.0' } },
  { name: 'safe-top', version: '1.0.0', dependencies: { 'safe-b': '^1.0.0' } },
  { name: 'cyc-x', version: '1.0.0', dependencies: { 'cyc-y': '^1.0.0', 'deep-leaf': '~1.0.0' } },
  { name: 'cyc-y', version: '1.0.0', dependencies: { 'cyc-x': '^1.0.0' } },
];

async function treeHub(t: Test, tier: StoreTier) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-exposure-tree-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const fixtures = path.join(dir, 'upstream');
  writeNpmTree(fixtures, TREE);
  const db = await tier.database(t, dir);
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(fixtures) });
  t.teardown(() => upstream.close());
  const where = hubOnDatabase(db);
  const hub = await startTestHub({
    dir: path.join(dir, 'hub'),
    mysqlUrl: where.mysqlUrl,
    plugins: [npm, admin, flags],
    registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
    config: { ...where.config, flag_sources: [{ name: 'scanner', secret: SECRET }] as never, auth: { anonymous: [] } },
  });
  t.teardown(() => hub.close());
  const push = async (items: unknown[]) => {
    const body = JSON.stringify({ flags: items });
    const p = '/api/v1/flags/scanner';
    const res = await fetch(`${hub.url}${p}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signFlagRequest({ secret: SECRET, method: 'POST', path: p, body }),
      },
      body,
    });
    return (await res.json()) as { accepted: number };
  };
  const get = async (p: string) => {
    const res = await fetch(`${hub.url}${p}`, { headers: { authorization: `Bearer ${hub.adminToken}` } });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  return { hub, push, get };
}

type Row = Record<string, any>;
/** consumer: fetched -> via (or "direct"), sorted: what the report says, compactly. */
const said = (rows: Row[]) =>
  rows
    .map(
      (r) =>
        `${r.consumer}: ${r.fetched_package}@${r.fetched_version} ${r.exposure === 'direct' ? 'direct' : `via ${r.via}`}`,
    )
    .sort();

const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);
for (const tier of tiers) {
  t.test(
    `${tier.name}: two users install a tree with npm; a flag on a deep dependency names each consumer's chain`,
    { skip: hasNpm ? false : missingClient('npm') },
    async (t) => {
      const { hub, push, get } = await treeHub(t, tier);
      const registry = `${hub.url}/proxy/npm/`;
      t.match(
        await npmEnv(t, registry, await hub.token('alice', { roles: ['reader'] })).install('top-app@1.0.0'),
        { code: 0 },
        'alice installs top-app',
      );
      t.match(
        await npmEnv(t, registry, await hub.token('bob', { roles: ['reader'] })).install(
          'safe-top@1.0.0',
          'cyc-y@1.0.0',
        ),
        { code: 0 },
        'bob installs safe-top and cyc-y (a cycle)',
      );
      await hub.hub.artifacts.idle();
      await hub.hub.audit.flush();
      const analysed = await fetch(`${hub.url}/api/v1/admin/exposure/analyse`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hub.adminToken}`, 'content-type': 'application/json' },
        body: '{}',
      });
      t.match(
        await analysed.json(),
        { analyses: [{ registry: 'npm', artifacts: 9, failed: 0 }] },
        'every held tarball read (deep-leaf twice)',
      );
      await new Promise((r) => setTimeout(r, 5));
      t.match(
        await push([
          {
            external_id: 'MAL-9',
            registry: 'npm',
            package_name: 'deep-leaf',
            version: '1.0.0',
            kind: 'malware',
            effect: 'warn',
            summary: 'postinstall payload',
          },
        ]),
        { accepted: 1 },
      );

      const res = await get('/api/v1/admin/exposure');
      t.equal(res.status, 200);
      t.equal(res.headers.get('content-length'), null, 'streamed (chunked), not one buffered body');
      const report = JSON.parse(res.text) as { rows: Row[]; coverage: Row };
      t.same(
        said(report.rows),
        [
          'alice: deep-leaf@1.0.0 direct',
          'alice: mid-a@1.0.0 via mid-a@1.0.0 -> mid-b@1.0.0 -> deep-leaf@1.0.0',
          'alice: mid-b@1.0.0 via mid-b@1.0.0 -> deep-leaf@1.0.0',
          'alice: top-app@1.0.0 via top-app@1.0.0 -> mid-a@1.0.0 -> mid-b@1.0.0 -> deep-leaf@1.0.0',
          'bob: cyc-x@1.0.0 via cyc-x@1.0.0 -> deep-leaf@1.0.0',
          'bob: cyc-y@1.0.0 via cyc-y@1.0.0 -> cyc-x@1.0.0 -> deep-leaf@1.0.0',
          'bob: deep-leaf@1.0.0 direct',
        ],
        "each consumer's chain; safe-b's ^2.0.0 excludes the flagged 1.0.0, so safe-b and safe-top expose nobody; the cycle ends",
      );
      const top = report.rows.find((r) => r.fetched_package === 'top-app')!;
      t.match(top, {
        package_name: 'deep-leaf',
        version: '1.0.0',
        exposure: 'dependent',
        depth: 3,
        certain: true,
        waived: null,
        fetches_before_flag: 1,
        fetches_after_flag: 0,
        external_id: 'MAL-9',
      });
      t.same(
        top.chain,
        [
          { package_name: 'top-app', version: '1.0.0', range: null },
          { package_name: 'mid-a', version: '1.0.0', range: '^1.0.0' },
          { package_name: 'mid-b', version: '1.0.0', range: '^1.0.0' },
          { package_name: 'deep-leaf', version: '1.0.0', range: '^1.0.0' },
        ],
        'the chain, with the range each step declares',
      );
      t.match(top.token_ids, /^\S+$/, 'the token that fetched it');
      t.match(report.coverage, { depth: 5, walk_truncated: [] });

      // The depth limit: links followed from the flagged version.
      t.same(
        said(JSON.parse((await get('/api/v1/admin/exposure?depth=1')).text).rows),
        [
          'alice: deep-leaf@1.0.0 direct',
          'alice: mid-b@1.0.0 via mid-b@1.0.0 -> deep-leaf@1.0.0',
          'bob: cyc-x@1.0.0 via cyc-x@1.0.0 -> deep-leaf@1.0.0',
          'bob: deep-leaf@1.0.0 direct',
        ],
        'depth=1: the dependents of the flagged version only',
      );
      t.equal(
        JSON.parse((await get('/api/v1/admin/exposure?depth=2')).text).rows.some(
          (r: Row) => r.fetched_package === 'top-app',
        ),
        false,
        'depth=2 stops before top-app (3 links)',
      );
      for (const bad of ['0', '11', 'two', '-1'])
        t.equal((await get(`/api/v1/admin/exposure?depth=${bad}`)).status, 400, `depth=${bad} is refused`);

      // A range flag on 2.x: safe-b's ^2.0.0 admits it, mid-b's ^1.0.0 and cyc-x's ~1.0.0 do not.
      t.match(
        await push([
          {
            external_id: 'CVE-2',
            registry: 'npm',
            package_name: 'deep-leaf',
            version_range: '>=2.0.0',
            kind: 'vulnerability',
            effect: 'warn',
          },
        ]),
        { accepted: 1 },
      );
      t.same(
        said(
          JSON.parse((await get('/api/v1/admin/exposure?source=scanner&package=deep-leaf')).text).rows.filter(
            (r: Row) => r.external_id === 'CVE-2',
          ),
        ),
        [
          'bob: deep-leaf@2.0.0 direct',
          'bob: safe-b@1.0.0 via safe-b@1.0.0 -> deep-leaf@2.0.0',
          'bob: safe-top@1.0.0 via safe-top@1.0.0 -> safe-b@1.0.0 -> deep-leaf@2.0.0',
        ],
        'the range is evaluated against the versions hub holds: only 2.x dependents',
      );

      // The same rows as JSON lines and CSV, streamed.
      const jsonl = await get('/api/v1/admin/exposure/export?format=jsonl&depth=5');
      t.match(jsonl.headers.get('content-type'), /^application\/x-ndjson/);
      const lines = jsonl.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Row);
      t.equal(lines.length, 10, 'one line per row (7 for MAL-9, 3 for CVE-2)');
      t.same(
        lines.find((l) => l.fetched_package === 'cyc-y')!.chain.map((s: Row) => s.package_name),
        ['cyc-y', 'cyc-x', 'deep-leaf'],
      );
      const csv = parseCsv((await get('/api/v1/admin/exposure/export?format=csv&depth=1')).text);
      const header = csv[0]!;
      const midB = csv.find((r) => r[header.indexOf('fetched_package')] === 'mid-b')!;
      t.same(
        [midB[header.indexOf('via')], midB[header.indexOf('depth')], midB[header.indexOf('waived')]],
        ['mid-b@1.0.0 -> deep-leaf@1.0.0', '1', ''],
      );
      t.equal((await get('/api/v1/admin/exposure/export?format=xml')).status, 400);
    },
  );
}
