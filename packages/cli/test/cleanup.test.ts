/**
 * Cleanup policies end to end (issue 29): a hub with npm registries over a fixture upstream and local generic
 * registries, versions fetched and published with real requests, aged in the database, then previewed and run
 * through the admin API and `hub cleanup`, on SQLite and on MariaDB.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import t, { type Test } from 'tap';
import admin from '@hub/admin';
import npm from '@hub/kind-npm';
import { generic } from '@hub/kind-path';
import publishing from '@hub/publishing';
import { execFileSync } from 'node:child_process';
import {
  hubOnDatabase,
  makeTar,
  missingClient,
  npmEnv,
  npmFixtureHandler,
  startFixtureUpstream,
  startTestHub,
  storeTiers,
} from '@hub/testkit';
import { eventually, json, runHub } from './run-hub.js';

const DAY = 86_400_000;
const KB = 1024;
const LIB = ['1.0.0', '1.1.0', '1.2.0', '2.0.0-beta.1', '2.0.0-beta.2', '2.0.0'];
const OTHER = ['1.0.0', '2.0.0'];

/** An npm fixture folder: packuments and tarballs of ~8 KiB of incompressible bytes each. */
function npmFixtures(dir: string): void {
  for (const [name, versions] of [
    ['lib', LIB],
    ['other', OTHER],
    ['big', ['1.0.0', '2.0.0', '3.0.0']],
  ] as const) {
    fs.mkdirSync(path.join(dir, name, '-'), { recursive: true });
    const doc: Record<string, any> = {
      name,
      'dist-tags': { latest: versions.filter((v) => !v.includes('-')).at(-1) },
      versions: {},
      time: {},
    };
    for (const version of versions) {
      const tgz = zlib.gzipSync(
        makeTar({
          'package/package.json': JSON.stringify({ name, version }),
          'package/data.bin': crypto.randomBytes(8 * KB),
        }),
      );
      fs.writeFileSync(path.join(dir, name, '-', `${name}-${version}.tgz`), tgz);
      doc.versions[version] = {
        name,
        version,
        dist: {
          tarball: `{{UPSTREAM}}/${name}/-/${name}-${version}.tgz`,
          shasum: crypto.createHash('sha1').update(tgz).digest('hex'),
          integrity: `sha512-${crypto.createHash('sha512').update(tgz).digest('base64')}`,
        },
      };
      doc.time[version] = '2024-01-02T00:00:00.000Z';
    }
    fs.writeFileSync(path.join(dir, `${name}.json.tmpl`), JSON.stringify(doc));
  }
}

async function setup(
  t: Test,
  database: Awaited<ReturnType<ReturnType<typeof storeTiers>['tiers'][number]['database']>>,
) {
  const dir = t.testdir();
  npmFixtures(path.join(dir, 'up'));
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(path.join(dir, 'up')) });
  t.teardown(() => upstream.close());
  const on = hubOnDatabase(database);
  const hub = await startTestHub({
    dir: path.join(dir, 'hub'),
    plugins: [admin, npm, generic, publishing],
    mysqlUrl: on.mysqlUrl,
    config: { ...on.config, auth: { anonymous: ['source:read'] }, cache: { memory_bytes: 0 } },
    registries: [
      {
        name: 'npm',
        type: 'npm',
        upstream: upstream.url,
        cleanup: [
          // Releases of lib: the two newest stay; older ones go once unused for 30 days.
          { packages: ['lib'], prereleases: 'exclude', keep_newest: 2, unused_days: 30 },
          // Pre-releases of any package go after 7 unused days.
          { prereleases: 'only', unused_days: 7 },
          // Anything cached more than a year ago.
          { older_than_days: 365 },
        ],
      },
      // Each fetched tarball is ~8 KiB: the third passes 20 KiB.
      { name: 'small', type: 'npm', upstream: upstream.url, max_bytes: 20 * KB },
      { name: 'files', type: 'generic', mode: 'local', cleanup: [{ older_than_days: 10, include_published: true }] },
      { name: 'kept', type: 'generic', mode: 'local', cleanup: [{ older_than_days: 10 }] },
    ],
  });
  t.teardown(() => hub.close());
  const h = hub.hub;
  const get = async (registry: string, name: string, version: string) => {
    const res = await fetch(`${hub.url}/proxy/${registry}/${name}/-/${name}-${version}.tgz`);
    await res.arrayBuffer();
    return res.status;
  };
  /** Sets a version's last download `idle` days back and its cache time `age` days back. */
  const age = async (registry: string, name: string, version: string, idle: number, age = idle) =>
    h
      .db('artifacts')
      .where({ registry, package_name: name, version })
      .update({ last_access_at: Date.now() - idle * DAY, fetched_at: Date.now() - age * DAY });
  const held = async (registry: string, name?: string) =>
    (
      (await h
        .db('artifacts')
        .where({ registry, ...(name ? { package_name: name } : {}) })
        .whereNotNull('version')
        .orderBy(['package_name', 'version'])
        .select('package_name', 'version')) as Array<{ package_name: string; version: string }>
    ).map((r) => `${r.package_name}@${r.version}`);
  const cli = (args: string[], token = hub.adminToken) => runHub(args, { HUB_URL: hub.url, HUB_TOKEN: token });
  return { hub, h, upstream, get, age, held, cli };
}

const { tiers, skipped } = storeTiers();
const hasNpm = (() => {
  try {
    execFileSync('npm', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (skipped) t.comment(skipped);

for (const tier of tiers) {
  t.test(`${tier.name}: preview and run remove what the rules select, nothing held, pinned or kept`, async (t) => {
    const s = await setup(t, await tier.database(t, t.testdir()));
    for (const v of LIB) t.equal(await s.get('npm', 'lib', v), 200, `lib ${v}`);
    for (const v of OTHER) t.equal(await s.get('npm', 'other', v), 200, `other ${v}`);
    await s.h.artifacts.idle();
    // lib: every version unused for 60 days except 1.1.0 (yesterday); other 1.0.0 cached 400 days ago, 2.0.0 too but pinned.
    for (const v of LIB) await s.age('npm', 'lib', v, v === '1.1.0' ? 1 : 60);
    await s.age('npm', 'other', '1.0.0', 1, 400);
    await s.age('npm', 'other', '2.0.0', 1, 400);
    await s.h.services.pins.pin('npm', 'other', '2.0.0'); // the disappearance audit holds it
    await s.h.services.holds.hold('npm', 'lib', '1.0.0', 'lockfile:release-1'); // a lockfile check marked it required

    const reader = await s.hub.token('reader');
    const auditor = await s.hub.token('auditor', { roles: ['auditor'] });
    const operator = await s.hub.token('operator', { roles: ['operator'] });
    const preview = (token: string, q = '') =>
      fetch(`${s.hub.url}/api/v1/admin/cleanup/preview${q}`, { headers: { authorization: `Bearer ${token}` } });
    t.equal((await preview(reader)).status, 403, 'preview needs system:read');
    const run = (token: string, body: unknown = {}) =>
      fetch(`${s.hub.url}/api/v1/admin/cleanup/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    t.equal((await run(auditor)).status, 403, 'a run needs system:write');
    t.equal((await preview(auditor, '?registry=nope')).status, 404, 'an unknown registry is 404');

    const seen = await preview(auditor, '?registry=npm');
    t.equal(seen.status, 200);
    const report = (await seen.json()) as any;
    // lib releases 1.0.0 1.1.0 1.2.0 2.0.0: 2.0.0 and 1.2.0 are the newest two; 1.1.0 is in use; 1.0.0 is held.
    // lib pre-releases: both unused for 60 days. other 1.0.0: cached 400 days ago. other 2.0.0: pinned.
    t.same(
      report.items.map((i: any) => [i.package, i.version, i.rule]),
      [
        ['lib', '2.0.0-beta.1', 1],
        ['lib', '2.0.0-beta.2', 1],
        ['other', '1.0.0', 2],
      ],
    );
    t.match(report, { dry_run: true, registries: ['npm'], versions: 3, truncated: false });
    t.equal(
      report.bytes,
      report.items.reduce((n: number, i: any) => n + i.bytes, 0),
    );
    t.ok(report.items.every((i: any) => i.bytes > 8 * KB && i.files === 1 && i.published === false));
    t.equal(report.items[2].rule_description, 'cleanup[2]: packages = *, older_than_days = 365');
    t.equal((await s.held('npm')).length, 8, 'a preview removes nothing');

    // hub cleanup --dry-run: the same list, exit 0, still nothing removed.
    const dry = await s.cli(['cleanup', '--dry-run', '--registry', 'npm'], auditor);
    t.equal(dry.code, 0, dry.stderr);
    t.match(dry.stdout, /^REGISTRY\s+PACKAGE\s+VERSION\s+BYTES\s+LAST_DOWNLOADED\s+RULE\n/);
    t.match(
      dry.stdout,
      /npm\s+lib\s+2\.0\.0-beta\.1\s+\d+\s+\S+\s+cleanup\[1\]: packages = \*, unused_days = 7, prereleases = only\n/,
    );
    t.match(dry.stdout, new RegExp(`would remove 3 version\\(s\\), ${report.bytes} bytes\\n$`));
    t.equal((await s.held('npm')).length, 8);
    const one = await s.cli(['cleanup', '--dry-run', '--registry', 'npm', '--limit', '1'], auditor);
    t.equal(one.code, 0, one.stderr);
    t.match(
      one.stdout,
      new RegExp(
        `^REGISTRY.*\n.*2\.0\.0-beta\.1.*\nwould remove 3 version\\(s\\), ${report.bytes} bytes \\(1 listed\\)\n$`,
      ),
    );
    const bad = await s.cli(['cleanup', '--limit', 'many'], auditor);
    t.equal(bad.code, 2, 'bad usage');
    const denied = await s.cli(['cleanup', '--registry', 'npm'], auditor);
    t.equal(denied.code, 1, 'a run with a read-only token fails');
    t.match(denied.stderr, /HTTP 403/);

    // The run, as the operator.
    const ran = await s.cli(['cleanup', '--registry', 'npm', '--json'], operator);
    t.equal(ran.code, 0, ran.stderr);
    t.match(json(ran), { dry_run: false, versions: 3, bytes: report.bytes });
    t.same(await s.held('npm'), ['lib@1.0.0', 'lib@1.1.0', 'lib@1.2.0', 'lib@2.0.0', 'other@2.0.0']);
    t.same(
      (await (await preview(operator, '?registry=npm')).json()) as any,
      { dry_run: true, registries: ['npm'], versions: 0, bytes: 0, items: [], truncated: false },
      'nothing left to remove',
    );

    // A removed version is fetched again on the next request.
    t.equal(s.upstream.count('/other/-/other-1.0.0.tgz'), 1);
    t.equal(await s.get('npm', 'other', '1.0.0'), 200);
    t.equal(s.upstream.count('/other/-/other-1.0.0.tgz'), 2);

    // Metrics, the audit rows and the event.
    const metrics = await (await fetch(`${s.hub.url}/metrics`)).text();
    t.match(metrics, new RegExp(`hub_cleanup_bytes_freed_total\\{registry="npm"\\} ${report.bytes}\\n`));
    t.match(metrics, /hub_cleanup_versions_removed_total\{registry="npm"\} 3\n/);
    await s.h.audit.flush();
    const runs = (await s.h.db('access_events').where({ action: 'cleanup_run' }).select()) as any[];
    t.same(
      runs.map((r) => [r.user_id, r.registry, r.detail]),
      [['operator', 'npm', `removed 3 version(s), ${report.bytes} bytes, in npm`]],
    );
    const removals = (await s.h
      .db('access_events')
      .where({ action: 'cleanup_remove' })
      .orderBy('id')
      .select()) as any[];
    t.same(
      removals.map((r) => [r.user_id, r.package, r.version]),
      [
        ['system:cleanup', 'lib', '2.0.0-beta.1'],
        ['system:cleanup', 'lib', '2.0.0-beta.2'],
        ['system:cleanup', 'other', '1.0.0'],
      ],
    );
    t.match(
      removals[2].detail,
      /^cleanup\[2\]: packages = \*, older_than_days = 365: cached files removed, \d+ bytes, last downloaded \d{4}-.*; run by operator$/,
    );
    const calls = (await s.h
      .db('access_events')
      .where({ action: 'cleanup_start', user_id: 'operator' })
      .select('outcome')) as Array<{ outcome: string }>;
    t.same(
      calls.map((c) => c.outcome),
      ['allowed'],
      'the API call is audited too',
    );
    const events = await s.h.events.list({ type: 'cleanup_ran', limit: 10 });
    t.equal(events.length, 1);
    t.same(events[0]!.data, {
      registry: 'npm',
      versions: 3,
      bytes: report.bytes,
      registries: [{ registry: 'npm', versions: 3, bytes: report.bytes }],
      by: 'operator',
    });

    // A released hold lets the rule select the version at the next run; the pin still keeps other@2.0.0.
    await s.h.services.holds.release('lockfile:release-1');
    t.match(json(await s.cli(['cleanup', '--registry', 'npm', '--json'], operator)), {
      versions: 1,
      items: [{ package: 'lib', version: '1.0.0', rule: 0 }],
    });
  });

  t.test(`${tier.name}: published versions only with include_published (deleted with a tombstone)`, async (t) => {
    const s = await setup(t, await tier.database(t, t.testdir()));
    const publisher = await s.hub.token('ci', { roles: ['publisher'] });
    for (const reg of ['files', 'kept'])
      for (const p of ['tools/a-1.0.bin', 'tools/a-2.0.bin']) {
        const res = await fetch(`${s.hub.url}/proxy/${reg}/${p}`, {
          method: 'PUT',
          body: `${reg} ${p}`,
          headers: { authorization: `Bearer ${publisher}` },
        });
        t.equal(res.status, 201, `${reg} ${p}`);
      }
    for (const reg of ['files', 'kept']) await s.age(reg, 'repo', 'tools/a-1.0.bin', 20);

    const all = await s.cli(['cleanup', '--dry-run']);
    t.equal(all.code, 0, all.stderr);
    t.match(
      all.stdout,
      /files\s+repo\s+tools\/a-1\.0\.bin\s+\d+\s+\S+\s+cleanup\[0\]: packages = \*, older_than_days = 10, include_published\n/,
    );
    t.notMatch(all.stdout, /^kept\s/m, 'a rule without include_published leaves published versions');
    t.match(all.stdout, /would remove 1 version\(s\), 21 bytes\n$/);

    const ran = json(await s.cli(['cleanup', '--json']));
    t.match(ran, {
      versions: 1,
      items: [{ registry: 'files', package: 'repo', version: 'tools/a-1.0.bin', published: true, bytes: 21 }],
    });
    t.same(ran.registries, ['npm', 'files', 'kept'], 'every registry with rules');
    t.equal((await fetch(`${s.hub.url}/proxy/files/tools/a-1.0.bin`)).status, 404, 'gone');
    t.equal((await fetch(`${s.hub.url}/proxy/kept/tools/a-1.0.bin`)).status, 200, 'kept');
    const status = json(await s.cli(['packages', 'publish-status', 'files', 'repo', '--json']));
    t.same(status.tombstones, ['tools/a-1.0.bin'], 'its number stays taken');
    const again = await fetch(`${s.hub.url}/proxy/files/tools/a-1.0.bin`, {
      method: 'PUT',
      body: 'again',
      headers: { authorization: `Bearer ${publisher}` },
    });
    t.equal(again.status, 409);
  });

  t.test(
    `${tier.name}: a registry's max_bytes removes its least recently used after the fetch that passes it`,
    async (t) => {
      const s = await setup(t, await tier.database(t, t.testdir()));
      for (const v of ['1.0.0', '2.0.0']) t.equal(await s.get('small', 'big', v), 200);
      for (const v of ['1.0.0', '2.0.0', '3.0.0']) t.equal(await s.get('npm', 'big', v), 200);
      await s.h.artifacts.idle();
      await s.age('small', 'big', '2.0.0', 5); // 2.0.0 is the least recently downloaded, but held
      await s.age('small', 'big', '1.0.0', 1);
      await s.h.services.holds.hold('small', 'big', '2.0.0', 'lockfile:release-2');
      t.equal(await s.get('small', 'big', '3.0.0'), 200); // three ~8 KiB files: over 20 KiB
      await s.h.artifacts.idle(); // its row is written: the reclaim starts from here
      const left = await eventually(async () => {
        const h = await s.held('small');
        return !h.includes('big@1.0.0') && h;
      }, 20_000);
      t.same(left, ['big@2.0.0', 'big@3.0.0'], 'the least recently downloaded not held went, down to 90% of max_bytes');
      t.equal((await s.held('npm', 'big')).length, 3, 'other registries are untouched');
      await s.h.audit.flush();
      const rows = (await s.h.db('access_events').where({ action: 'retention_reclaim' }).select()) as any[];
      t.same(
        rows.map((r) => [r.registry, r.version]),
        [['small', '1.0.0']],
      );
      t.match(rows[0].detail, /^over registry max_bytes: /);
      t.match(
        await (await fetch(`${s.hub.url}/metrics`)).text(),
        /hub_cache_reclaimed_total\{registry="small",reason="over registry max_bytes"\} 1/,
      );
    },
  );

  t.test(
    `${tier.name}: a real npm install is a download: what it installed is no longer unused`,
    { skip: hasNpm ? false : missingClient('npm') },
    async (t) => {
      const s = await setup(t, await tier.database(t, t.testdir()));
      for (const v of ['2.0.0-beta.1', '2.0.0-beta.2']) t.equal(await s.get('npm', 'lib', v), 200);
      await s.h.artifacts.idle();
      for (const v of ['2.0.0-beta.1', '2.0.0-beta.2']) await s.age('npm', 'lib', v, 60);
      const before = json(await s.cli(['cleanup', '--dry-run', '--registry', 'npm', '--json']));
      t.same(
        before.items.map((i: any) => i.version),
        ['2.0.0-beta.1', '2.0.0-beta.2'],
      );
      const npmClient = npmEnv(t, `${s.hub.url}/proxy/npm/`, null);
      const installed = await npmClient.install('lib@2.0.0-beta.2');
      t.equal(installed.code, 0, installed.stderr);
      t.match(npmClient.installed('lib'), { version: '2.0.0-beta.2' });
      t.equal(s.upstream.count('/lib/-/lib-2.0.0-beta.2.tgz'), 1, 'served from the cache');
      const after = json(await s.cli(['cleanup', '--registry', 'npm', '--json']));
      t.same(
        after.items.map((i: any) => i.version),
        ['2.0.0-beta.1'],
        'the installed pre-release stays',
      );
      t.same(await s.held('npm'), ['lib@2.0.0-beta.2']);
    },
  );
}
