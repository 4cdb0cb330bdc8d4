/**
 * The package catalog and package page (issue 14) on SQLite and, where HUB_TEST_MYSQL_URL is set, on
 * MariaDB/MySQL: real downloads through hub fill them; blocks, unlisting, paging, search, pre-release
 * filtering, canonical names and errors; every answer validated against the schema the route declares.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { storeTiers } from '@hub/testkit';
import { PackageDetail, PackageList } from '../src/index.js';
import { NPM_FIXTURES, setup, type AdminSetup } from './setup.js';

const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
const validList = ajv.compile(PackageList);
const validDetail = ajv.compile(PackageDetail);

const sha256 = (file: string) =>
  createHash('sha256')
    .update(fs.readFileSync(path.join(NPM_FIXTURES, file)))
    .digest('hex');

async function download(s: AdminSetup, p: string, token = s.adminToken): Promise<void> {
  const res = await fetch(`${s.base}${p}`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${p} answered ${res.status}`);
}

for (const store of tiers) {
  t.test(`${store.name}: the catalog and the package page show what hub holds`, async (t) => {
    const db = await store.database(t, t.testdir());
    const s = await setup(t, db.client === 'mysql' ? { mysqlUrl: db.url } : { config: { database: db } });
    const reader = await s.token('rita', { roles: ['reader'] });
    await download(s, '/hubdemo/-/hubdemo-1.0.0.tgz', reader);
    await download(s, '/hubdemo/-/hubdemo-1.1.0.tgz', reader);
    await download(s, '/hubdemo/-/hubdemo-1.1.0.tgz', reader);
    await download(s, '/hubdep/-/hubdep-1.0.0.tgz');
    await download(s, '/@hubtest/scoped/-/scoped-1.0.0.tgz');
    // A download completes once its bytes are verified; the artifact row follows, so wait for it.
    await s.hub.artifacts.idle();
    t.equal(
      (
        await s.api('POST', '/api/v1/admin/blocks', {
          body: { registry: 'npm', package_name: 'hubdemo', version: '1.0.0', reason: 'CVE-1 <b>' },
        })
      ).status,
      201,
    );
    // A version hub never held: known from its block, a pre-release.
    t.equal(
      (
        await s.api('POST', '/api/v1/admin/blocks', {
          body: { registry: 'npm', package_name: 'hubdemo', version: '2.0.0-rc.1' },
        })
      ).status,
      201,
    );
    t.equal(
      (
        await s.api('POST', '/api/v1/admin/unlist', {
          body: { registry: 'npm', package_name: 'hubdemo', version: '1.1.0' },
        })
      ).status,
      201,
    );
    t.equal(
      (
        await s.api('POST', '/api/v1/admin/blocks', {
          body: { registry: 'npm', package_name: 'hubdep', reason: 'whole name' },
        })
      ).status,
      201,
    );

    const list = await s.api('GET', '/api/v1/admin/packages');
    t.equal(list.status, 200);
    t.ok(validList(list.json), `the list matches its schema ${JSON.stringify(validList.errors)}`);
    t.same(
      list.json.items.map((i: { name: string }) => i.name),
      ['@hubtest/scoped', 'hubdemo', 'hubdep'],
      'by registry, then canonical name',
    );
    t.match(list.json, { total: 3, page: 1, per_page: 50 });
    const demo = list.json.items[1];
    const demoBytes = ['hubdemo/-/hubdemo-1.0.0.tgz', 'hubdemo/-/hubdemo-1.1.0.tgz'].reduce(
      (n, f) => n + fs.statSync(path.join(NPM_FIXTURES, f)).size,
      0,
    );
    t.match(demo, {
      registry: 'npm',
      name: 'hubdemo',
      versions_held: 2,
      bytes_held: demoBytes,
      pulls: 3,
      blocked_versions: 2,
      flagged_versions: 0,
      upstream_state: null,
    });
    t.ok(Date.parse(demo.last_pull_at) > 0, 'last pull is a time');
    t.match(
      list.json.items[2],
      { name: 'hubdep', versions_held: 1, pulls: 1, blocked_versions: 1 },
      'a whole-name block counts every held version',
    );

    t.same(
      (await s.api('GET', '/api/v1/admin/packages?q=demo')).json.items.map((i: { name: string }) => i.name),
      ['hubdemo'],
      'q is a substring of the name',
    );
    t.same(
      (await s.api('GET', '/api/v1/admin/packages?q=%25')).json,
      { items: [], total: 0, page: 1, per_page: 50 },
      'q is text, not a LIKE pattern',
    );
    t.match(
      (await s.api('GET', '/api/v1/admin/packages?registry=&q=&page=&per_page=')).json,
      { total: 3, page: 1, per_page: 50 },
      'empty values are absent',
    );
    t.match(
      (await s.api('GET', '/api/v1/admin/packages?registry=npm&per_page=1&page=99')).json,
      { page: 3, total: 3, per_page: 1, items: [{ name: 'hubdep' }] },
      'an out-of-range page clamps',
    );
    for (const bad of ['per_page=0', 'per_page=201', 'page=abc', 'page=1&page=2', 'sort=name']) {
      const r = await s.api('GET', `/api/v1/admin/packages?${bad}`);
      t.equal(r.status, 400, `${bad} is refused`);
      t.equal(r.json.error.code, 'bad_request');
    }
    t.equal((await s.api('GET', '/api/v1/admin/packages?registry=nope')).json.error.code, 'not_found');
    t.equal((await s.api('GET', '/api/v1/admin/packages', { token: reader })).status, 403, 'needs system:read');

    const page = await s.api('GET', '/api/v1/admin/packages/npm/hubdemo');
    t.equal(page.status, 200);
    t.ok(validDetail(page.json), `the page matches its schema ${JSON.stringify(validDetail.errors)}`);
    t.match(page.json, {
      registry: 'npm',
      name: 'hubdemo',
      upstream_state: null,
      total: 3,
      matched: 2,
      prereleases_hidden: 1,
      page: 1,
      per_page: 25,
    });
    t.same(
      page.json.versions.map((v: { version: string }) => v.version),
      ['1.1.0', '1.0.0'],
      'newest first, pre-releases hidden',
    );
    const [v110, v100] = page.json.versions;
    t.match(v110, {
      held: true,
      unlisted: true,
      blocked: null,
      pulls: 2,
      sha256: sha256('hubdemo/-/hubdemo-1.1.0.tgz'),
      prerelease: false,
      disappeared: false,
      flags: [],
      dependencies: [],
    });
    t.match(v100, { held: true, unlisted: false, pulls: 1, blocked: { reason: 'CVE-1 <b>', by: 'admin' } });
    t.type(v100.blocked.id, 'number');

    const all = (await s.api('GET', '/api/v1/admin/packages/npm/hubdemo?prereleases=show')).json;
    t.same(
      all.versions.map((v: { version: string }) => v.version),
      ['2.0.0-rc.1', '1.1.0', '1.0.0'],
      'semver order: 2.0.0-rc.1 is newer than 1.1.0',
    );
    t.match(all, { matched: 3, prereleases_hidden: 0 });
    t.match(all.versions[0], {
      held: false,
      bytes: 0,
      sha256: null,
      prerelease: true,
      pulls: 0,
      last_pull_at: null,
      blocked: { by: 'admin', reason: null },
    });
    t.match((await s.api('GET', '/api/v1/admin/packages/npm/hubdemo?q=1.1')).json, {
      total: 3,
      matched: 1,
      versions: [{ version: '1.1.0' }],
    });
    t.match(
      (await s.api('GET', '/api/v1/admin/packages/npm/hubdemo?per_page=1&page=9')).json,
      { page: 2, versions: [{ version: '1.0.0' }] },
      'the page clamps',
    );
    t.match(
      (await s.api('GET', '/api/v1/admin/packages/npm/hubdep')).json.versions,
      [{ version: '1.0.0', blocked: { reason: 'whole name' } }],
      'a whole-name block refuses each version',
    );

    const scoped = await s.api('GET', '/api/v1/admin/packages/npm/%40hubtest%2Fscoped');
    t.match(
      scoped.json,
      { name: '@hubtest/scoped', versions: [{ version: '1.0.0', held: true }] },
      'a scoped name is one encoded segment',
    );
    for (const [p, code] of [
      ['/api/v1/admin/packages/npm/never-held', 'not_found'],
      ['/api/v1/admin/packages/nope/hubdemo', 'not_found'],
      ['/api/v1/admin/packages/npm/Bad%20Name', 'bad_request'],
      ['/api/v1/admin/packages/npm/hubdemo?prereleases=maybe', 'bad_request'],
    ] as const) {
      const r = await s.api('GET', p);
      t.equal(r.json?.error?.code, code, `${p}: ${code}`);
      t.notOk(r.text.includes('    at '), 'no stack trace');
    }
  });
}
