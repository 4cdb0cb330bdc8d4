/**
 * Revalidation (issue 29, decision 0058): POST /api/v1/admin/cache/revalidate refetches a package's listing past
 * its TTL, says which versions came and went, replaces the cached copy only with a valid one, records an
 * audit-log row, and hands what went to the upstream audit as a sweep finding. On SQLite and, where
 * HUB_TEST_MYSQL_URL is set (CI), on MariaDB.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { storeTiers } from '@hub/testkit';
import { holdAll, setup, type AuditSetup } from './setup.js';

const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

/** The upstream publishes `version` of hubdemo (a copy of 1.0.0's entry). */
function publish(s: AuditSetup, version: string) {
  const file = join(s.root, 'hubdemo.json.tmpl');
  const doc = JSON.parse(readFileSync(file, 'utf8')) as { versions: Record<string, Record<string, unknown>> };
  doc.versions[version] = { ...doc.versions['1.0.0'], version, _id: `hubdemo@${version}` };
  writeFileSync(file, JSON.stringify(doc));
}

/** The versions hub serves in a packument now (the full one, or the abbreviated one npm installs from). */
async function served(s: AuditSetup, name = 'hubdemo', accept = 'application/json'): Promise<string[]> {
  const res = await fetch(`${s.url}/proxy/npm/${name}`, { headers: { accept } });
  if (res.status !== 200) return [`status ${res.status}`];
  return Object.keys(((await res.json()) as { versions: Record<string, unknown> }).versions).sort();
}

const revalidate = (s: AuditSetup, body: Record<string, unknown>, token?: string) =>
  s.api('POST', '/api/v1/admin/cache/revalidate', body, token);

for (const tier of tiers) {
  t.test(
    `${tier.name}: versions added and gone are reported, served at once, recorded, and what went is a sweep finding`,
    async (t) => {
      const db = await tier.database(t, t.testdir());
      const s = await setup(t, { db, registry: { metadata_ttl_secs: 3600 } });
      await holdAll(s);
      t.same(await served(s), ['1.0.0', '1.1.0'], 'the packument is cached');

      s.unpublish('hubdemo', '1.1.0');
      publish(s, '1.2.0');
      t.same(await served(s), ['1.0.0', '1.1.0'], 'within its TTL the cached packument is served, as the upstream was');

      const r = await revalidate(s, { registry: 'npm', package: 'hubdemo', version: '1.1.0' });
      t.equal(r.status, 200, JSON.stringify(r.json));
      t.match(r.json, {
        registry: 'npm',
        package: 'hubdemo',
        version: '1.1.0',
        listed: false,
        before: ['1.0.0', '1.1.0'],
        after: ['1.0.0', '1.2.0'],
        added: ['1.2.0'],
        gone: ['1.1.0'],
        documents: [
          { key: 'packument:full:hubdemo', outcome: 'replaced' },
          { key: 'packument:corgi:hubdemo', outcome: 'replaced' },
        ],
        effects: { audit: { swept: true, missing: ['1.1.0'], disappeared: [], cleared: [] } },
      });
      t.ok(Date.parse(r.json.fetched_at) > 0, 'fetched_at is a time');
      t.same(await served(s), ['1.0.0', '1.2.0'], 'clients get the new listing at once');

      const missing = (await s.api('GET', '/api/v1/admin/upstream/disappeared?registry=npm&state=missing')).json;
      t.match(
        missing,
        { total: 1, rows: [{ package_name: 'hubdemo', version: '1.1.0', misses: 1 }] },
        'the gone held version is a miss, as a sweep would record it',
      );

      await s.hub.audit.flush();
      const rows = await s.hub.db('access_events').where({ action: 'revalidate' }).select();
      t.equal(rows.length, 1, 'one audit-log row');
      t.match(rows[0], {
        outcome: 'allowed',
        registry: 'npm',
        package: 'hubdemo',
        version: '1.1.0',
        detail: /added 1\.2\.0; gone 1\.1\.0/,
      });

      const again = await revalidate(s, { registry: 'npm', package: 'hubdemo' });
      t.match(
        again.json,
        {
          before: ['1.0.0', '1.2.0'],
          after: ['1.0.0', '1.2.0'],
          added: [],
          gone: [],
          documents: [{ outcome: 'unchanged' }, { outcome: 'unchanged' }],
        },
        'nothing changed: nothing reported',
      );
      t.match(
        again.json.effects.audit,
        { swept: true, missing: [], disappeared: ['1.1.0'] },
        'a version already missing is asked again: the second miss confirms it (confirm_after 2)',
      );
      t.match((await s.api('GET', '/api/v1/admin/upstream/disappeared?registry=npm&state=disappeared')).json, {
        total: 1,
        rows: [{ version: '1.1.0', misses: 2 }],
      });

      s.republish('hubdemo');
      const back = await revalidate(s, { registry: 'npm', package: 'hubdemo' });
      t.match(
        back.json,
        { added: ['1.1.0'], gone: ['1.2.0'], effects: { audit: { cleared: ['1.1.0'] } } },
        'a version that answers again clears its row',
      );
      t.equal((await s.api('GET', '/api/v1/admin/upstream/disappeared?registry=npm')).json.total, 0);
    },
  );

  t.test(`${tier.name}: an upstream that removed the package: everything gone, the listing kept`, async (t) => {
    const db = await tier.database(t, t.testdir());
    const s = await setup(t, { db, registry: { metadata_ttl_secs: 3600 } });
    await holdAll(s);
    s.upstream.fault(/^\/hubdep(\?|$)/, { type: 'status', status: 404, body: '{"error":"not found"}' });
    const r = await revalidate(s, { registry: 'npm', package: 'hubdep' });
    t.equal(r.status, 200, JSON.stringify(r.json));
    t.match(r.json, {
      before: ['1.0.0'],
      after: [],
      gone: ['1.0.0'],
      documents: [{ outcome: 'not_found' }, { outcome: 'not_found' }],
      effects: { audit: { swept: true, missing: ['1.0.0'] } },
    });
    // Only the abbreviated packument was ever cached (the tarball's download read it): that one is kept.
    t.same(
      await served(s, 'hubdep', 'application/vnd.npm.install-v1+json'),
      ['1.0.0'],
      'the audit keeps the last good listing: the held version stays installable',
    );
  });
}

t.test('an answer that is not a valid listing replaces nothing', async (t) => {
  const s = await setup(t, { registry: { metadata_ttl_secs: 3600 } });
  await holdAll(s);
  t.same(await served(s), ['1.0.0', '1.1.0'], 'the packument is cached');
  publish(s, '1.2.0');
  for (const fault of [{ type: 'html200' as const }, { type: 'status' as const, status: 500 }]) {
    s.upstream.fault(/^\/hubdemo(\?|$)/, fault);
    const r = await revalidate(s, { registry: 'npm', package: 'hubdemo' });
    t.equal(r.status, 502, `${fault.type}: 502`);
    t.match(r.json, {
      error: { code: 'upstream_error', message: /no valid listing of hubdemo .*the cached copy stays/ },
    });
    t.same(await served(s), ['1.0.0', '1.1.0'], `${fault.type}: the good copy is still served`);
    s.upstream.clearFaults();
  }
  s.upstream.fault(/^\/hubdemo(\?|$)/, {
    type: 'status',
    status: 200,
    body: '{"no":"versions"}',
    headers: { 'content-type': 'application/json' },
  });
  const unreadable = await revalidate(s, { registry: 'npm', package: 'hubdemo' });
  t.equal(unreadable.status, 502, 'JSON without name or versions is refused too');
  t.same(await served(s), ['1.0.0', '1.1.0']);
  s.upstream.clearFaults();
  t.match(
    (await revalidate(s, { registry: 'npm', package: 'hubdemo' })).json,
    { added: ['1.2.0'] },
    'a valid answer replaces it',
  );
  t.same(await served(s), ['1.0.0', '1.1.0', '1.2.0']);
});

t.test('permission system:write, and refusals of what cannot be revalidated', async (t) => {
  const s = await setup(t, { config: { auth: { anonymous: [] } } });
  const reader = await s.token('rita', { roles: ['reader', 'auditor'] });
  const writer = await s.token('olly', { roles: ['operator'] });
  const body = { registry: 'npm', package: 'hubdemo' };
  const anonymous = await fetch(`${s.url}/api/v1/admin/cache/revalidate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  t.equal(anonymous.status, 401, 'no token: 401');
  t.equal((await revalidate(s, body, reader)).status, 403, 'system:read is not enough');
  t.equal(s.upstream.count('/hubdemo'), 0, 'a refused call asks the upstream nothing');
  t.equal((await revalidate(s, body, writer)).status, 200, 'system:write may');
  t.match(await revalidate(s, { registry: 'nope', package: 'x' }), {
    status: 404,
    json: { error: { code: 'not_found' } },
  });
  t.match(await revalidate(s, { registry: 'npm', package: '../x' }), {
    status: 400,
    json: { error: { code: 'bad_request' } },
  });
  t.match(
    await revalidate(s, { registry: 'npm', package: 'hubdemo', extra: 1 }),
    { status: 400 },
    'unknown members are refused',
  );
  t.match(await revalidate(s, { registry: 'npm' }), { status: 400 }, 'package is required');
});
