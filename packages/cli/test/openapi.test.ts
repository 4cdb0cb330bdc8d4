/**
 * The OpenAPI document (issue 14) against a real hub with the admin, audit, flags and IP-block plugins: every
 * mounted API route is in it with its method and nothing else is; real answers (after real downloads,
 * publications, signed flags, a dependency analysis and a sweep) validate against the schemas their
 * routes declare, and every JSON route declares one; the package page shows the audit's state, the flag
 * and the SBOM's dependencies.
 */
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import admin, { openApiDocument } from '@hub/admin';
import audit from '@hub/audit';
import flagsPlugin from '@hub/flags';
import ipBlocks from '@hub/ip-blocks';
import npm from '@hub/kind-npm';
import oci from '@hub/kind-oci';
import { generic } from '@hub/kind-path';
import { VERSION } from '@hub/runtime';
import { npmFixtureHandler, signFlagRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { json, runHub } from './run-hub.js';
import publishing from '@hub/publishing';
import webhooks from '@hub/webhooks';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));
const SECRET = 'osv-shared-secret';

const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
// A folder of OSV records (one) for an advisory feed to pull.
const osvDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-openapi-osv-'));
t.teardown(() => fs.rmSync(osvDir, { recursive: true, force: true }));
fs.writeFileSync(
  path.join(osvDir, 'HUB-1.json'),
  JSON.stringify({
    id: 'HUB-1',
    modified: '2026-01-01T00:00:00Z',
    summary: 'bad',
    affected: [{ package: { ecosystem: 'npm', name: 'hubdep' }, versions: ['1.0.0'] }],
  }),
);
t.teardown(() => upstream.close());
const s = await startTestHub({
  dir: t.testdir(),
  plugins: [npm, generic, oci, admin, audit, flagsPlugin, publishing, ipBlocks, webhooks],
  registries: [
    { name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url },
    // Published files older than a day go by the cleanup rule (none is, until the test ages one).
    { name: 'files', type: 'generic', mode: 'local', cleanup: [{ older_than_days: 1, include_published: true }] },
    { name: 'mixed', type: 'npm', mode: 'hybrid', upstream: upstream.url },
    { name: 'boxes', type: 'oci', mode: 'local' },
  ],
  config: {
    flag_sources: [{ name: 'osv', secret: SECRET }] as never,
    advisory_feeds: [{ name: 'local-osv', directory: osvDir, effect: 'warn', ecosystems: { npm: ['npm'] } }] as never,
    // A receiver nobody listens at, one attempt: each publish leaves a dead-lettered delivery to list.
    notifications: { webhooks: [{ url: 'http://127.0.0.1:9/hooks', events: ['package_published'] }], max_attempts: 1 },
    // A config policy, so the policy list answers both sources; it covers nobody the test uses.
    auth: {
      policies: [{ name: 'guests-never-publish', effect: 'deny', permissions: ['source:write'], roles: ['guest'] }],
    },
  },
});
t.teardown(() => s.close());

const api = async (method: string, p: string, body?: unknown) => {
  const res = await fetch(`${s.url}${p}`, {
    method,
    headers: {
      authorization: `Bearer ${s.adminToken}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? undefined,
    body: text ? JSON.parse(text) : undefined,
  };
};

const docRes = await fetch(`${s.url}/api/v1/openapi.json`);
const doc = (await docRes.json()) as {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: Record<string, any>;
};

t.test('served without a token, as OpenAPI 3.1 JSON', async (t) => {
  t.equal(docRes.status, 200);
  t.match(docRes.headers.get('content-type'), /^application\/json/);
  t.equal(doc.openapi, '3.1.0');
  t.same(
    doc,
    openApiDocument(s.hub.adminRoutes.routes(), VERSION),
    "the admin builder's document of the routes the hub's plugins mounted",
  );
});

t.test('every mounted /api/v1 route is in the document with its method, and nothing else is', async (t) => {
  const toDoc = (p: string) => p.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
  const mounted = new Set(
    s.hub
      .mountedRoutes()
      .filter((r) => r.path.startsWith('/api/v1/') && r.path !== '/api/v1/openapi.json')
      .map((r) => `${r.method} ${toDoc(r.path)}`),
  );
  const documented = new Set(
    Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)),
  );
  t.ok(mounted.size > 30, `the admin, audit and flags routes are mounted (${mounted.size})`);
  for (const r of [
    'GET /api/v1/admin/packages',
    'GET /api/v1/admin/packages/{registry}/{package}',
    'POST /api/v1/admin/upstream/recheck',
    'GET /api/v1/admin/exposure',
    'POST /api/v1/flags/{source}',
  ])
    t.ok(mounted.has(r), `${r} is mounted`);
  t.same(
    [...mounted].filter((r) => !documented.has(r)),
    [],
    'no mounted route is missing from the document',
  );
  t.same(
    [...documented].filter((r) => !mounted.has(r)),
    [],
    'the document names no route that is not mounted',
  );
  for (const [p, ops] of Object.entries(doc.paths))
    for (const [m, op] of Object.entries(ops)) {
      const names = [...p.matchAll(/\{([^}]+)\}/g)].map((x) => x[1]);
      t.same(
        (op.parameters ?? []).filter((x: { in: string }) => x.in === 'path').map((x: { name: string }) => x.name),
        names,
        `${m} ${p} declares its path parameters`,
      );
    }
});

t.test('real answers validate against the response schemas their routes declare', async (t) => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ components: doc.components }, 'doc');
  const checked = new Set<string>();
  /** Checks an answer already received against the schema its route declares. */
  const validate = (method: string, p: string, docPath: string, r: { status: number; type?: string; body: any }) => {
    checked.add(`${method} ${docPath}`);
    const op = doc.paths[docPath]![method.toLowerCase()];
    const [status, declared] = Object.entries(op.responses as Record<string, any>).find(([k]) => k.startsWith('2'))!;
    t.equal(String(r.status), status, `${method} ${p} answers ${status}`);
    // The schema of the media type answered (an SBOM's format picks it), without its parameters.
    const type = (r.type ?? 'application/json').split(';')[0]!.trim();
    t.ok(declared.content[type], `${method} ${docPath} declares an answer in ${type}`);
    const schema = (declared.content[type] ?? declared.content['application/json']).schema;
    t.not(JSON.stringify(schema), '{"type":"object"}', `${method} ${docPath} declares its answer`);
    const valid = ajv.validate(schema, r.body);
    t.ok(valid, `${method} ${p} matches its schema ${JSON.stringify(ajv.errors)}`);
    return r.body;
  };
  const check = async (method: string, p: string, docPath: string, body?: unknown) =>
    validate(method, p, docPath, await api(method, p, body));
  /** A flag source's signed push or lift. */
  const signed = async (method: 'POST' | 'DELETE', p: string, body?: string) => {
    const res = await fetch(`${s.url}${p}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...signFlagRequest({ secret: SECRET, method, path: p, body }),
      },
      body,
    });
    return { status: res.status, body: (await res.json()) as any };
  };
  const download = async (file: string) => {
    const res = await fetch(`${s.url}/proxy/npm${file}`, { headers: { authorization: `Bearer ${reader}` } });
    await res.arrayBuffer();
    t.equal(res.status, 200, file);
  };

  const reader = await s.token('rita', { roles: ['reader'] });
  for (const f of ['/hubdemo/-/hubdemo-1.0.0.tgz', '/hubdemo/-/hubdemo-1.1.0.tgz', '/hubdep/-/hubdep-1.0.0.tgz'])
    await download(f);
  await s.hub.artifacts.idle();
  const flag = {
    external_id: 'GHSA-1',
    registry: 'npm',
    package_name: 'hubdemo',
    version: '1.0.0',
    kind: 'vulnerability',
    effect: 'warn',
    summary: '<script>x</script>',
    severity: 'high',
  };
  // The second item names no registry hub has: refused on its own, answered by index.
  const pushed = validate(
    'POST',
    '/api/v1/flags/osv',
    '/api/v1/flags/{source}',
    await signed(
      'POST',
      '/api/v1/flags/osv',
      JSON.stringify({ flags: [flag, { ...flag, external_id: 'GHSA-X', registry: 'nope' }] }),
    ),
  );
  t.match(pushed, {
    accepted: 1,
    rejected: 1,
    errors: [{ index: 1, reason: /registry/ }],
    flags: [{ external_id: 'GHSA-1', state: 'active' }],
  });
  const analysed = await check('POST', '/api/v1/admin/exposure/analyse', '/api/v1/admin/exposure/analyse', {});
  t.match(
    analysed.analyses,
    [{ registry: 'npm', artifacts: 3, analysed: 3, failed: 0 }],
    'the SBOM analysis read the held tarballs',
  );

  await check('POST', '/api/v1/admin/blocks', '/api/v1/admin/blocks', {
    registry: 'npm',
    package_name: 'hubdep',
    version: '1.0.0',
    reason: 'test',
  });
  await check('GET', '/api/v1/admin/blocks', '/api/v1/admin/blocks');
  const list = await check('GET', '/api/v1/admin/packages', '/api/v1/admin/packages');
  t.match(list.items, [
    { name: 'hubdemo', flagged_versions: 1, upstream_state: 'ok', pulls: 2 },
    { name: 'hubdep', blocked_versions: 1, upstream_state: 'ok' },
  ]);
  const page = await check('GET', '/api/v1/admin/packages/npm/hubdemo', '/api/v1/admin/packages/{registry}/{package}');
  t.equal(page.upstream_state, 'ok', 'the audit plugin reports the upstream state');
  t.match(page.versions, [
    { version: '1.1.0', flags: [], dependencies: [{ name: 'hubdep' }] },
    {
      version: '1.0.0',
      flags: [{ id: 'GHSA-1', source: 'osv', effect: 'warn', summary: '<script>x</script>', severity: 'high' }],
    },
  ]);

  await check('POST', '/api/v1/admin/users', '/api/v1/admin/users', { id: 'dora', roles: ['reader'] });
  await check('GET', '/api/v1/admin/users', '/api/v1/admin/users');
  await check('POST', '/api/v1/admin/users/dora/block', '/api/v1/admin/users/{id}/block');
  await check('POST', '/api/v1/admin/users/dora/unblock', '/api/v1/admin/users/{id}/unblock');
  const created = await check('POST', '/api/v1/admin/tokens', '/api/v1/admin/tokens', {
    user_id: 'dora',
    permissions: ['source:read'],
    expires_in_secs: 3600,
  });
  await check('GET', '/api/v1/admin/users/dora', '/api/v1/admin/users/{id}');
  await check('DELETE', `/api/v1/admin/tokens/${created.id}`, '/api/v1/admin/tokens/{id}');
  await check('POST', '/api/v1/admin/ip-blocks', '/api/v1/admin/ip-blocks', { ip: '192.0.2.0/24', reason: 'test' });
  await check('GET', '/api/v1/admin/ip-blocks', '/api/v1/admin/ip-blocks');
  await check(
    'DELETE',
    `/api/v1/admin/ip-blocks/${encodeURIComponent('192.0.2.0/24')}`,
    '/api/v1/admin/ip-blocks/{ip}',
  );
  const unlist = { registry: 'npm', package_name: 'hubdemo', version: '1.1.0' };
  await check('POST', '/api/v1/admin/unlist', '/api/v1/admin/unlist', unlist);
  await check('GET', '/api/v1/admin/unlist', '/api/v1/admin/unlist');
  await check('DELETE', '/api/v1/admin/unlist', '/api/v1/admin/unlist', unlist);
  await check('GET', '/api/v1/admin/flags?include_dead=true', '/api/v1/admin/flags');
  await check('GET', '/api/v1/admin/upstream/disappeared?registry=npm', '/api/v1/admin/upstream/disappeared');
  const blocks = (await api('GET', '/api/v1/admin/blocks')).body.blocks as Array<{ id: number }>;
  await check('DELETE', `/api/v1/admin/blocks/${blocks[0]!.id}`, '/api/v1/admin/blocks/{id}');

  // Access decisions, and the audit log they and a refusal leave.
  t.match(
    await check('POST', '/api/v1/admin/access-check', '/api/v1/admin/access-check', {
      user_id: 'dora',
      permission: 'source:read',
      registry: 'npm',
      package: 'hubdemo',
    }),
    {
      decision: 'allow',
      rule: 'role:reader',
      subject: { user_id: 'dora', token_id: null, roles: ['reader'], token_permissions: null },
    },
  );
  t.match(
    await check('POST', '/api/v1/admin/access-check', '/api/v1/admin/access-check', {
      token_id: created.id,
      permission: 'source:read',
    }),
    { decision: 'deny', rule: 'token_revoked', subject: { token_permissions: ['source:read'] } },
  );
  t.equal(
    (await fetch(`${s.url}/api/v1/admin/users`, { headers: { authorization: `Bearer ${reader}` } })).status,
    403,
    'a reader is refused the user list',
  );
  const page1 = await check('GET', '/api/v1/admin/audit-log?limit=5', '/api/v1/admin/audit-log');
  t.equal(page1.entries.length, 5, 'a full page');
  t.ok(page1.next_cursor, 'with a cursor to the next');
  t.ok(
    (
      await check(
        'GET',
        `/api/v1/admin/audit-log?cursor=${page1.next_cursor}&action=download`,
        '/api/v1/admin/audit-log',
      )
    ).entries.length >= 3,
    'the downloads, on a later page',
  );
  t.match((await check('GET', '/api/v1/admin/audit-log?denied=true', '/api/v1/admin/audit-log')).entries, [
    { outcome: 'denied', status: 403, code: 'forbidden', user_id: 'rita' },
  ]);
  t.match(await check('GET', '/api/v1/admin/audit-log/verify', '/api/v1/admin/audit-log/verify'), {
    ok: true,
    key_id: null,
    chains: [{ chain: 'local', ok: true, problems: [] }],
  });

  // Policies from the config and from the API.
  const policy = await check('POST', '/api/v1/admin/policies', '/api/v1/admin/policies', {
    name: 'files-read-only',
    effect: 'deny',
    permissions: ['source:write'],
    registries: ['files'],
    users: ['dora'],
  });
  t.match(policy, {
    source: 'api',
    rule: `policy:${policy.id}:files-read-only`,
    registries: ['files'],
    created_by: 'admin',
  });
  t.match((await check('GET', '/api/v1/admin/policies', '/api/v1/admin/policies')).policies, [
    { source: 'config', rule: 'guests-never-publish', roles: ['guest'] },
    { source: 'api', id: policy.id },
  ]);
  t.match(await check('DELETE', `/api/v1/admin/policies/${policy.id}`, '/api/v1/admin/policies/{id}'), {
    id: policy.id,
  });

  // Publications to a local registry: listed, their status, a version deleted, local_only; each publish is an event.
  const publisher = await s.token('pat', { roles: ['publisher'] });
  for (const f of ['tools/a-1.0.bin', 'tools/a-2.0.bin'])
    t.equal(
      (
        await fetch(`${s.url}/proxy/files/${f}`, {
          method: 'PUT',
          body: `contents of ${f}`,
          headers: { authorization: `Bearer ${publisher}` },
        })
      ).status,
      201,
      `published ${f}`,
    );
  t.match((await check('GET', '/api/v1/admin/local-packages', '/api/v1/admin/local-packages')).packages, [
    { registry: 'files', name: 'repo', local_only: true },
  ]);
  const status = '/api/v1/admin/local-packages/status?registry=files&package=repo';
  t.match((await check('GET', status, '/api/v1/admin/local-packages/status')).versions, [
    { version: 'tools/a-1.0.bin', publisher: 'pat' },
    { version: 'tools/a-2.0.bin' },
  ]);
  await check('DELETE', '/api/v1/admin/local-packages/versions', '/api/v1/admin/local-packages/versions', {
    registry: 'files',
    package_name: 'repo',
    version: 'tools/a-1.0.bin',
  });
  t.same((await check('GET', status, '/api/v1/admin/local-packages/status')).tombstones, ['tools/a-1.0.bin']);
  t.match(
    await check('POST', '/api/v1/admin/local-packages/local-only', '/api/v1/admin/local-packages/local-only', {
      registry: 'files',
      package_name: 'repo',
      local_only: false,
    }),
    { local_only: false },
  );
  t.match(
    await check('POST', '/api/v1/admin/registries/boxes/gc', '/api/v1/admin/registries/{registry}/gc', {
      dry_run: true,
    }),
    { registry: 'boxes', dry_run: true, removed: [], skipped: [] },
  );
  t.match(
    await check('POST', '/api/v1/admin/registries/mixed/claims', '/api/v1/admin/registries/{registry}/claims', {
      package: 'hubdemo',
    }),
    { registry: 'mixed', package: 'hubdemo', claimed_by: 'admin' },
  );
  t.match(
    (await check('GET', '/api/v1/admin/registries/mixed/claims', '/api/v1/admin/registries/{registry}/claims')).claims,
    [{ package: 'hubdemo' }],
  );
  t.match(
    await check(
      'DELETE',
      '/api/v1/admin/registries/mixed/claims/hubdemo',
      '/api/v1/admin/registries/{registry}/claims/{package}',
    ),
    { package: 'hubdemo' },
  );
  // The publish event is stored after the publish answers: wait for it, then read it as the API answers it.
  for (
    let i = 0;
    i < 200 && (await api('GET', '/api/v1/admin/events?type=package_published')).body.events.length < 2;
    i++
  )
    await new Promise((r) => setTimeout(r, 10));
  t.match(await check('GET', '/api/v1/admin/events?limit=1', '/api/v1/admin/events'), {
    events: [
      {
        type: 'package_unpublished',
        registry: 'files',
        data: { registry: 'files', package: 'repo', version: 'tools/a-1.0.bin' },
      },
    ],
    next_cursor: /^\d+$/,
  });
  for (
    let i = 0;
    i < 200 && (await api('GET', '/api/v1/admin/webhooks/deliveries?state=dead')).body.deliveries.length < 2;
    i++
  )
    await new Promise((r) => setTimeout(r, 10));
  // The feed's scheduled first pull runs within seconds of start: let it land, then give the manual pull a new record.
  for (let i = 0; i < 1000 && !(await api('GET', '/api/v1/admin/advisory-feeds')).body.feeds[0].last_pull_at; i++)
    await new Promise((r) => setTimeout(r, 20));
  fs.writeFileSync(
    path.join(osvDir, 'HUB-2.json'),
    JSON.stringify({
      id: 'HUB-2',
      modified: '2026-01-02T00:00:00Z',
      summary: 'worse',
      affected: [{ package: { ecosystem: 'npm', name: 'hub-absent' }, versions: ['1.0.0'] }],
    }),
  );
  t.match(
    await check('POST', '/api/v1/admin/advisory-feeds/local-osv/pull', '/api/v1/admin/advisory-feeds/{name}/pull'),
    { outcome: 'updated', feed: { name: 'local-osv', records: 2 } },
  );
  t.match(await check('GET', '/api/v1/admin/advisory-feeds', '/api/v1/admin/advisory-feeds'), {
    feeds: [{ name: 'local-osv', healthy: true }],
  });
  t.match(
    await check('GET', '/api/v1/admin/webhooks/deliveries?state=dead&limit=1', '/api/v1/admin/webhooks/deliveries'),
    {
      deliveries: [
        { event_type: 'package_published', state: 'dead', attempts: 1, webhook: 'http://127.0.0.1:9/hooks' },
      ],
      next_cursor: /^\d+$/,
    },
  );

  // A reload of the file the hub started with: applied, nothing changed (decision 0057).
  t.match(await check('POST', '/api/v1/admin/config/reload?local=true', '/api/v1/admin/config/reload'), {
    replicas: [{ result: 'applied', changed_keys: [], error: null }],
  });

  // The health card, with the audit's and the flags' sections.
  const health = await check('GET', '/api/v1/admin/health', '/api/v1/admin/health');
  t.match(health, {
    status: 'ok',
    database: 'ok',
    audit: { policy: 'audit' },
    flags: {},
    registries: [
      { name: 'npm', mode: 'proxy', audit: { audited: true } },
      { name: 'files', upstream: null, audit: { audited: false } },
      { name: 'mixed', mode: 'hybrid' },
    ],
  });
  t.ok(health.registries[0].cached.artifacts >= 3, 'the downloads are cached');

  // The exposure report: rita fetched the flagged version.
  const exposure = await check('GET', '/api/v1/admin/exposure', '/api/v1/admin/exposure');
  t.match(exposure.rows, [
    {
      consumer: 'rita',
      package_name: 'hubdemo',
      version: '1.0.0',
      exposure: 'direct',
      external_id: 'GHSA-1',
      fetches_before_flag: 1,
    },
  ]);
  t.match(exposure.coverage.sources, [{ name: 'osv', pushed: true, live: 1 }]);

  // SBOMs of a version and of the inventory, in every format.
  const cdx = await check(
    'GET',
    '/api/v1/admin/sbom/npm/hubdemo/1.1.0',
    '/api/v1/admin/sbom/{registry}/{package}/{version}',
  );
  t.match(cdx.components, [{ name: 'hubdep' }], 'the dependency is a component');
  t.match(
    (
      await check(
        'GET',
        '/api/v1/admin/sbom/npm/hubdemo/1.1.0?format=spdx',
        '/api/v1/admin/sbom/{registry}/{package}/{version}',
      )
    ).packages,
    [{ name: 'hubdemo' }, { name: 'hubdep' }],
  );
  t.equal(
    (await check('GET', '/api/v1/admin/sbom?format=cyclonedx', '/api/v1/admin/sbom')).components.length,
    4,
    'three npm versions and a published file',
  );
  t.equal((await check('GET', '/api/v1/admin/sbom?format=spdx&registry=npm', '/api/v1/admin/sbom')).packages.length, 3);
  const inventory = await check('GET', '/api/v1/admin/sbom', '/api/v1/admin/sbom');
  t.same(inventory.registries, ['npm', 'files', 'mixed', 'boxes']);
  t.match(inventory.packages, [
    { name: 'hubdemo', version: '1.0.0', pulled_by: [{ user_id: 'rita', downloads: 1 }] },
    { name: 'hubdemo', version: '1.1.0' },
    { name: 'hubdep' },
  ]);

  // The upstream audit: a sweep of every registry, a package's status, a recheck.
  t.match((await check('POST', '/api/v1/admin/upstream/sweep', '/api/v1/admin/upstream/sweep', {})).sweeps, [
    { registry: 'npm', outcome: 'ok', probed: 2, conclusive: 2, missing: 0 },
    { registry: 'files', outcome: 'skipped', reason: /local/ },
  ]);
  t.match(
    await check('GET', '/api/v1/admin/upstream/status/npm/hubdemo', '/api/v1/admin/upstream/status/{registry}/{name}'),
    { audited: true, held_versions: ['1.0.0', '1.1.0'], rows: [], last_sweep: { outcome: 'ok' } },
  );
  const recheck = await check('POST', '/api/v1/admin/upstream/recheck', '/api/v1/admin/upstream/recheck', {
    registry: 'npm',
    package_name: 'hubdemo',
  });
  t.same(
    recheck.probes.map((p: { version: string; answer: string }) => `${p.version} ${p.answer}`).sort(),
    ['1.0.0 present', '1.1.0 present'],
    'both held versions probed',
  );
  t.same(recheck.cleared, []);

  // A flag lifted by its source.
  const other = { ...flag, external_id: 'GHSA-2', package_name: 'hubtest-unheld', version: '9.9.9' };
  t.equal((await signed('POST', '/api/v1/flags/osv', JSON.stringify({ flags: [other] }))).status, 200);
  t.match(
    validate(
      'DELETE',
      '/api/v1/flags/osv/GHSA-2',
      '/api/v1/flags/{source}/{external_id}',
      await signed('DELETE', '/api/v1/flags/osv/GHSA-2'),
    ),
    { flag: { external_id: 'GHSA-2', state: 'tombstone' } },
  );

  // A listing refetched now (decision 0058).
  t.match(
    await check('POST', '/api/v1/admin/cache/revalidate', '/api/v1/admin/cache/revalidate', {
      registry: 'npm',
      package: '@hubtest/scoped',
      version: '1.0.0',
    }),
    { package: '@hubtest/scoped', listed: true, gone: [] },
  );
  // Cached files removed: one version, then the whole package (fetched again in between).
  const scoped = '/@hubtest/scoped/-/scoped-1.0.0.tgz';
  await download(scoped);
  await s.hub.artifacts.idle();
  t.same(
    await check(
      'DELETE',
      '/api/v1/admin/cache/npm/%40hubtest%2Fscoped/1.0.0',
      '/api/v1/admin/cache/{registry}/{package}/{version}',
    ),
    { registry: 'npm', package_name: '@hubtest/scoped', version: '1.0.0', removed: 1 },
  );
  await download(scoped);
  await s.hub.artifacts.idle();
  t.match(
    await check('DELETE', '/api/v1/admin/cache/npm/%40hubtest%2Fscoped', '/api/v1/admin/cache/{registry}/{package}'),
    { package_name: '@hubtest/scoped', version: null, removed: 1 },
  );

  // Cleanup: a published file aged past the rule, previewed, then removed by a run.
  await s.hub.db('artifacts').where({ registry: 'files' }).update({ fetched_at: 0 });
  t.match(await check('GET', '/api/v1/admin/cleanup/preview?registry=files', '/api/v1/admin/cleanup/preview'), {
    dry_run: true,
    versions: 1,
    items: [{ package: 'repo', version: 'tools/a-2.0.bin', published: true }],
  });
  t.match(await check('POST', '/api/v1/admin/cleanup/run', '/api/v1/admin/cleanup/run', {}), {
    dry_run: false,
    registries: ['files'],
    versions: 1,
  });

  // Every route that declares its answer got a real call here: a schema added without one fails this.
  const declared = Object.entries(doc.paths).flatMap(([p, ops]) =>
    Object.entries(ops)
      .filter(([, op]) => {
        const ok = Object.entries(op.responses as Record<string, any>).find(([k]) => k.startsWith('2'))![1];
        const schema = ok.content?.['application/json']?.schema;
        return schema && JSON.stringify(schema) !== '{"type":"object"}';
      })
      .map(([m]) => `${m.toUpperCase()} ${p}`),
  );
  t.same(
    declared.filter((r) => !checked.has(r)),
    [],
    'every declared answer schema is checked against a real answer',
  );
  // And every JSON answer is declared: only non-JSON ones (CSV exports) are left without a schema.
  const undeclared = Object.entries(doc.paths).flatMap(([p, ops]) =>
    Object.entries(ops)
      .filter(
        ([m, op]) =>
          'application/json' in
            Object.entries(op.responses as Record<string, any>).find(([k]) => k.startsWith('2'))![1].content &&
          !declared.includes(`${m.toUpperCase()} ${p}`),
      )
      .map(([m]) => `${m.toUpperCase()} ${p}`),
  );
  t.same(undeclared, [], 'no JSON route answers {type: object}');
});

t.test('hub packages list and show print the same answers', async (t) => {
  const env = { HUB_URL: s.url, HUB_TOKEN: s.adminToken };
  const listed = await runHub(['packages', 'list', '--registry', 'npm', '--query', 'hub', '--json'], env);
  t.equal(listed.code, 0, listed.stderr);
  t.same(json(listed), (await api('GET', '/api/v1/admin/packages?registry=npm&q=hub')).body);
  const text = await runHub(['packages', 'list', '--registry', 'npm'], env);
  t.match(text.stdout, /^REGISTRY\s+PACKAGE\s+VERSIONS/);
  t.match(text.stdout, /npm\s+hubdemo\s+2\s/);
  const shown = await runHub(['packages', 'show', 'npm', 'hubdemo', '--prereleases', '--json'], env);
  t.equal(shown.code, 0, shown.stderr);
  t.same(json(shown), (await api('GET', '/api/v1/admin/packages/npm/hubdemo?prereleases=show')).body);
  const page = await runHub(['packages', 'show', 'npm', 'hubdemo'], env);
  t.match(page.stdout, /npm hubdemo: upstream ok; 2 of 2 version\(s\) shown/);
  t.match(page.stdout, /osv\/GHSA-1 \(warn\)/);
  t.match(page.stdout, /hubdep@/);
  const missing = await runHub(['packages', 'show', 'npm', 'never-held'], env);
  t.equal(missing.code, 1, 'an unknown package is a refused request');
  t.match(missing.stderr, /not_found|knows no package/);
  t.equal((await runHub(['packages', 'list', '--page', 'x'], env)).code, 2, 'bad usage');
  t.match((await runHub(['packages', 'show', '--help'])).stdout, /Usage: hub packages show/);
});
