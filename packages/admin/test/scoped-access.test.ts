import { fileURLToPath } from 'node:url';
import t from 'tap';
import { startFixtureUpstream, startTestHub } from '@hub/testkit';
import rubygems from '@hub/kind-rubygems';
import admin from '../src/index.js';
import { request, setup } from './setup.js';

/** The rubygems kind's fixture server: hubmac 1.0 for x86_64-darwin-19, whose file name also reads as gem `hubmac-1.0-x86_64-darwin` version 19. */
const GEM_FIXTURES = fileURLToPath(new URL('../../../kind-rubygems/test/fixtures/upstream/', import.meta.url));
const AMBIGUOUS = 'hubmac-1.0-x86_64-darwin-19';

t.test(
  'a gem file name that splits two ways: the package-scoped deny the simulator reports holds on the download (issue 10)',
  async (t) => {
    const upstream = await startFixtureUpstream({ root: GEM_FIXTURES });
    t.teardown(() => upstream.close());
    const s = await startTestHub({
      dir: t.testdir(),
      plugins: [rubygems, admin],
      registries: [{ name: 'gems', type: 'rubygems', mode: 'proxy', upstream: upstream.url }],
      config: {
        auth: {
          anonymous: ['source:read'],
          policies: [
            {
              name: 'no-hubmac',
              effect: 'deny',
              permissions: ['source:read'],
              registries: ['gems'],
              packages: ['hubmac'],
            },
          ],
        },
      },
    });
    t.teardown(() => s.close());
    const token = await s.token('rita', { roles: ['reader'] });
    const tokenId = String((await s.hub.db('tokens').where({ user_id: 'rita' }).first('id'))!.id);
    const api = (path: string, body: unknown) =>
      request(`${s.url}${path}`, 'POST', { body, defaultToken: s.adminToken });
    const get = (path: string, who: string | null) => request(`${s.url}/proxy/gems/${path}`, 'GET', { token: who });

    for (const [label, who, subject] of [
      ['a reader', token, { token_id: tokenId }],
      ['anonymous', null, {}],
    ] as const) {
      const sim = await api('/api/v1/admin/access-check', {
        ...subject,
        permission: 'source:read',
        registry: 'gems',
        package: 'hubmac',
      });
      t.same([sim.json.decision, sim.json.rule], ['deny', 'no-hubmac'], `${label}: the simulator denies hubmac`);
      const gem = await get(`gems/${AMBIGUOUS}.gem`, who);
      t.equal(gem.status, who ? 403 : 401, `${label}: the .gem is refused`);
      t.equal(gem.json?.error?.code, who ? 'forbidden' : 'unauthenticated');
      t.equal(
        (await get(`quick/Marshal.4.8/${AMBIGUOUS}.gemspec.rz`, who)).status,
        who ? 403 : 401,
        `${label}: its gemspec too`,
      );
      t.equal((await get('info/hubmac', who)).status, who ? 403 : 401, `${label}: as is its info page`);
      const allowed = await api('/api/v1/admin/access-check', {
        ...subject,
        permission: 'source:read',
        registry: 'gems',
        package: 'hubdemo',
      });
      t.equal(allowed.json.decision, 'allow', `${label}: the simulator allows hubdemo`);
      t.equal((await get('gems/hubdemo-1.0.0.gem', who)).status, 200, `${label}: and hubdemo downloads`);
    }
    await s.hub.audit.flush();
    const rows = (await s.hub
      .db('access_events')
      .where({ registry: 'gems', package: 'hubmac', code: 'forbidden' })
      .select()) as Array<{ version: string }>;
    t.ok(
      rows.some((r) => r.version === '1.0-x86_64-darwin-19'),
      'the refusal is recorded under the resolved coordinate',
    );
  },
);

t.test('admin routes honour registry- and package-scoped denies of system:write (issue 10)', async (t) => {
  const s = await setup(t, {
    registries: (upstream) => [
      { name: 'npm', type: 'npm', mode: 'proxy', upstream },
      { name: 'npm-b', type: 'npm', mode: 'proxy', upstream },
    ],
  });
  const operator = await s.token('olly', { roles: ['operator'] });
  const as = (method: string, path: string, body?: unknown) => s.api(method, path, { token: operator, body });
  t.equal(
    (
      await s.api('POST', '/api/v1/admin/policies', {
        body: { effect: 'deny', permissions: ['system:write'], roles: ['operator'], registries: ['npm-b'] },
      })
    ).status,
    201,
  );
  t.equal(
    (
      await s.api('POST', '/api/v1/admin/policies', {
        body: {
          effect: 'deny',
          permissions: ['system:write'],
          roles: ['operator'],
          registries: ['npm'],
          packages: ['hubdep'],
        },
      })
    ).status,
    201,
  );
  const adminBlock = (
    await s.api('POST', '/api/v1/admin/blocks', { body: { registry: 'npm-b', package_name: 'hubdemo' } })
  ).json;

  const refused = [
    ['POST', '/api/v1/admin/blocks', { registry: 'npm-b', package_name: 'hubdemo' }],
    ['DELETE', `/api/v1/admin/blocks/${adminBlock.id}`, undefined],
    ['POST', '/api/v1/admin/unlist', { registry: 'npm-b', package_name: 'hubdemo', version: '1.0.0' }],
    ['DELETE', '/api/v1/admin/cache/npm-b/hubdemo', undefined],
    ['DELETE', '/api/v1/admin/cache/npm-b/hubdemo/1.0.0', undefined],
    ['POST', '/api/v1/admin/blocks', { registry: 'npm', package_name: 'hubdep' }],
    ['DELETE', '/api/v1/admin/cache/npm/hubdep', undefined],
  ] as const;
  for (const [method, path, body] of refused) {
    const r = await as(method, path, body);
    t.equal(r.status, 403, `${method} ${path} ${body ? JSON.stringify(body) : ''}: refused`);
    t.equal(r.json?.error?.code, 'forbidden');
  }
  const sim = await s.api('POST', '/api/v1/admin/access-check', {
    body: { user_id: 'olly', permission: 'system:write', registry: 'npm', package: 'hubdep' },
  });
  t.equal(sim.json.decision, 'deny', 'the simulator says the same');

  t.equal(
    (await as('POST', '/api/v1/admin/blocks', { registry: 'npm', package_name: 'hubdemo' })).status,
    201,
    'elsewhere the operator still blocks',
  );
  t.equal((await as('DELETE', '/api/v1/admin/cache/npm/hubdemo')).status, 200, 'and purges');
  const blocks = (await s.api('GET', '/api/v1/admin/blocks')).json.blocks as Array<{
    registry: string;
    package_name: string;
    blocked_by: string;
  }>;
  t.same(
    blocks.map((b) => `${b.registry} ${b.package_name} ${b.blocked_by}`).sort(),
    ['npm hubdemo olly', 'npm-b hubdemo admin'],
    'nothing changed where the operator is denied',
  );
});
