/**
 * The OpenAPI document (issue 14) against a real hub with the admin, audit and flags plugins: every
 * mounted API route is in it with its method and nothing else is; real answers (after real downloads,
 * a signed flag and a dependency analysis) validate against the schemas their routes declare; the
 * package page shows the audit's state, the flag and the SBOM's dependencies.
 */
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import admin from '@hub/admin';
import audit from '@hub/audit';
import flagsPlugin from '@hub/flags';
import npm from '@hub/kind-npm';
import { npmFixtureHandler, signFlagRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { json, runHub } from './run-hub.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));
const SECRET = 'osv-shared-secret';

const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
t.teardown(() => upstream.close());
const s = await startTestHub({
  dir: t.testdir(),
  plugins: [npm, admin, audit, flagsPlugin],
  registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
  config: { flag_sources: [{ name: 'osv', secret: SECRET }] as never },
});
t.teardown(() => s.close());

const api = async (method: string, p: string, body?: unknown) => {
  const res = await fetch(`${s.url}${p}`, {
    method,
    headers: { authorization: `Bearer ${s.adminToken}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as any) : undefined };
};

const docRes = await fetch(`${s.url}/api/v1/openapi.json`);
const doc = (await docRes.json()) as { openapi: string; paths: Record<string, Record<string, any>>; components: Record<string, any> };

t.test('served without a token, as OpenAPI 3.1 JSON', async (t) => {
  t.equal(docRes.status, 200);
  t.match(docRes.headers.get('content-type'), /^application\/json/);
  t.equal(doc.openapi, '3.1.0');
  t.same(doc, s.hub.openApi(), 'the same document the hub builds');
});

t.test('every mounted /api/v1 route is in the document with its method, and nothing else is', async (t) => {
  const toDoc = (p: string) => p.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
  const mounted = new Set(
    s.hub
      .mountedRoutes()
      .filter((r) => r.path.startsWith('/api/v1/') && r.path !== '/api/v1/openapi.json')
      .map((r) => `${r.method} ${toDoc(r.path)}`),
  );
  const documented = new Set(Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)));
  t.ok(mounted.size > 30, `the admin, audit and flags routes are mounted (${mounted.size})`);
  for (const r of ['GET /api/v1/admin/packages', 'GET /api/v1/admin/packages/{registry}/{package}', 'POST /api/v1/admin/upstream/recheck', 'GET /api/v1/admin/exposure', 'POST /api/v1/flags/{source}'])
    t.ok(mounted.has(r), `${r} is mounted`);
  t.same([...mounted].filter((r) => !documented.has(r)), [], 'no mounted route is missing from the document');
  t.same([...documented].filter((r) => !mounted.has(r)), [], 'the document names no route that is not mounted');
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
  const check = async (method: string, p: string, docPath: string, body?: unknown) => {
    checked.add(`${method} ${docPath}`);
    const r = await api(method, p, body);
    const op = doc.paths[docPath]![method.toLowerCase()];
    const [status, declared] = Object.entries(op.responses as Record<string, any>).find(([k]) => k.startsWith('2'))!;
    t.equal(String(r.status), status, `${method} ${p} answers ${status}`);
    const schema = declared.content['application/json'].schema;
    t.not(JSON.stringify(schema), '{"type":"object"}', `${method} ${docPath} declares its answer`);
    const valid = ajv.validate(schema, r.body);
    t.ok(valid, `${method} ${p} matches its schema ${JSON.stringify(ajv.errors)}`);
    return r.body;
  };

  const reader = await s.token('rita', { roles: ['reader'] });
  for (const f of ['/hubdemo/-/hubdemo-1.0.0.tgz', '/hubdemo/-/hubdemo-1.1.0.tgz', '/hubdep/-/hubdep-1.0.0.tgz']) {
    const res = await fetch(`${s.url}/proxy/npm${f}`, { headers: { authorization: `Bearer ${reader}` } });
    await res.arrayBuffer();
    t.equal(res.status, 200, f);
  }
  const body = JSON.stringify({ flags: [{ external_id: 'GHSA-1', registry: 'npm', package_name: 'hubdemo', version: '1.0.0', kind: 'vulnerability', effect: 'warn', summary: '<script>x</script>', severity: 'high' }] });
  const push = await fetch(`${s.url}/api/v1/flags/osv`, { method: 'POST', headers: { 'content-type': 'application/json', ...signFlagRequest({ secret: SECRET, method: 'POST', path: '/api/v1/flags/osv', body }) }, body });
  t.equal(push.status, 200, await push.text());
  t.equal((await api('POST', '/api/v1/admin/exposure/analyse', {})).status, 200, 'the SBOM analysis ran');

  await check('POST', '/api/v1/admin/blocks', '/api/v1/admin/blocks', { registry: 'npm', package_name: 'hubdep', version: '1.0.0', reason: 'test' });
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
    { version: '1.0.0', flags: [{ id: 'GHSA-1', source: 'osv', effect: 'warn', summary: '<script>x</script>', severity: 'high' }] },
  ]);

  await check('POST', '/api/v1/admin/users', '/api/v1/admin/users', { id: 'dora', roles: ['reader'] });
  await check('GET', '/api/v1/admin/users', '/api/v1/admin/users');
  await check('POST', '/api/v1/admin/users/dora/block', '/api/v1/admin/users/{id}/block');
  await check('POST', '/api/v1/admin/users/dora/unblock', '/api/v1/admin/users/{id}/unblock');
  const created = await check('POST', '/api/v1/admin/tokens', '/api/v1/admin/tokens', { user_id: 'dora', permissions: ['source:read'], expires_in_secs: 3600 });
  await check('GET', '/api/v1/admin/users/dora', '/api/v1/admin/users/{id}');
  await check('DELETE', `/api/v1/admin/tokens/${created.id}`, '/api/v1/admin/tokens/{id}');
  await check('POST', '/api/v1/admin/ip-blocks', '/api/v1/admin/ip-blocks', { ip: '192.0.2.0/24', reason: 'test' });
  await check('GET', '/api/v1/admin/ip-blocks', '/api/v1/admin/ip-blocks');
  await check('DELETE', `/api/v1/admin/ip-blocks/${encodeURIComponent('192.0.2.0/24')}`, '/api/v1/admin/ip-blocks/{ip}');
  const unlist = { registry: 'npm', package_name: 'hubdemo', version: '1.1.0' };
  await check('POST', '/api/v1/admin/unlist', '/api/v1/admin/unlist', unlist);
  await check('GET', '/api/v1/admin/unlist', '/api/v1/admin/unlist');
  await check('DELETE', '/api/v1/admin/unlist', '/api/v1/admin/unlist', unlist);
  await check('GET', '/api/v1/admin/flags?include_dead=true', '/api/v1/admin/flags');
  await check('GET', '/api/v1/admin/upstream/disappeared?registry=npm', '/api/v1/admin/upstream/disappeared');
  const blocks = (await api('GET', '/api/v1/admin/blocks')).body.blocks as Array<{ id: number }>;
  await check('DELETE', `/api/v1/admin/blocks/${blocks[0]!.id}`, '/api/v1/admin/blocks/{id}');

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
  t.same(declared.filter((r) => !checked.has(r)), [], 'every declared answer schema is checked against a real answer');
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
