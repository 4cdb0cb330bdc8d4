import type { IncomingMessage, ServerResponse } from 'node:http';
import t from 'tap';
import { pathOf, startFixtureUpstream, startTestHub } from '@hub/testkit';
import npm from '../src/index.js';
import { get } from './setup.js';

/**
 * A packument's dist.tarball is chosen by the upstream: it must go through the same address policy as a
 * redirect. Each version names an internal address; a live internal server counts what reaches it.
 */
t.test('a dist.tarball pointing into an internal network is refused before any connection, and nothing is cached', async (t) => {
  const internal = await startFixtureUpstream({ handler: (_req, res) => (res.end('internal secret'), true) });
  t.teardown(() => internal.close());
  const tarballs: Record<string, string> = {
    '1.0.0': 'http://169.254.169.254/latest/meta-data/iam.tgz',
    '1.0.1': `${internal.url}/x.tgz`,
    '1.0.2': `http://[::ffff:127.0.0.1]:${internal.port}/x.tgz`,
    '1.0.3': `http://0.0.0.0:${internal.port}/x.tgz`,
    '1.0.4': `http://localhost:${internal.port}/x.tgz`,
  };
  const packument = {
    name: 'ssrf-demo',
    'dist-tags': { latest: '1.0.4' },
    versions: Object.fromEntries(Object.entries(tarballs).map(([v, url]) => [v, { name: 'ssrf-demo', version: v, dist: { tarball: url } }])),
  };
  const upstream = await startFixtureUpstream({
    handler: (req: IncomingMessage, res: ServerResponse) => {
      if (pathOf(req.url) !== '/ssrf-demo') return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(packument));
      return true;
    },
  });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [npm],
    registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
    config: { auth: { anonymous: ['source:read'] } },
  });
  t.teardown(() => hub.close());

  for (const version of Object.keys(tarballs)) {
    const res = await get(`${hub.url}/proxy/npm/ssrf-demo/-/ssrf-demo-${version}.tgz`);
    t.equal(res.status, 502, `${version}: ${tarballs[version]}`);
    t.equal(res.json().error.code, 'upstream_error');
    t.match(res.json().error.message, /address policy/);
    t.notMatch(res.body.toString(), /169\.254|127\.0\.0\.1|0\.0\.0\.0|localhost|secret/, 'what is there is not described');
  }
  t.equal(internal.requests.length, 0, 'the internal server was never reached');
  await hub.hub.artifacts.idle();
  t.equal((await hub.hub.db('artifacts').count({ n: '*' }).first())!.n, 0, 'nothing cached');
});

t.test("tarball URLs are built from the requested name, never the upstream document's own name field", async (t) => {
  const upstream = await startFixtureUpstream({
    handler: (req: IncomingMessage, res: ServerResponse) => {
      if (pathOf(req.url) !== '/plain') return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name: '../../api/v1/admin', 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': { name: 'other', version: '1.0.0', dist: { tarball: `${upstream.url}/plain/-/plain-1.0.0.tgz` } } } }));
      return true;
    },
  });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({ dir: t.testdir(), plugins: [npm], registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }], config: { auth: { anonymous: ['source:read'] } } });
  t.teardown(() => hub.close());
  const doc = (await get(`${hub.url}/proxy/npm/plain`, { accept: 'application/json' })).json();
  t.equal(doc.name, 'plain', 'the served name is the requested one');
  t.equal(doc.versions['1.0.0'].dist.tarball, `${hub.url}/proxy/npm/plain/-/plain-1.0.0.tgz`);
});
