import type { IncomingMessage, ServerResponse } from 'node:http';
import t, { type Test } from 'tap';
import { pathOf, startFixtureUpstream, startTestHub } from '@hub/testkit';
import npm from '../src/index.js';
import { get } from './setup.js';

/** A hub proxying an upstream whose packument `name` names each version's dist.tarball as given. */
async function hubServing(t: Test, name: string, tarballs: Record<string, string>) {
  const packument = {
    name,
    'dist-tags': { latest: Object.keys(tarballs).at(-1) },
    versions: Object.fromEntries(
      Object.entries(tarballs).map(([v, url]) => [v, { name, version: v, dist: { tarball: url } }]),
    ),
  };
  const upstream = await startFixtureUpstream({
    handler: (req: IncomingMessage, res: ServerResponse) => {
      if (pathOf(req.url) !== `/${name}`) return false;
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
  return hub;
}

/**
 * A packument's dist.tarball is chosen by the upstream: it must go through the same address policy as a
 * redirect. Each version names an internal address; a live internal server counts what reaches it.
 */
t.test(
  'a dist.tarball pointing into an internal network is refused before any connection, and nothing is cached',
  async (t) => {
    const internal = await startFixtureUpstream({ handler: (_req, res) => (res.end('internal secret'), true) });
    t.teardown(() => internal.close());
    const tarballs: Record<string, string> = {
      '1.0.0': 'http://169.254.169.254/latest/meta-data/iam.tgz',
      '1.0.1': `${internal.url}/x.tgz`,
      '1.0.2': `http://[::ffff:127.0.0.1]:${internal.port}/x.tgz`,
      '1.0.3': `http://0.0.0.0:${internal.port}/x.tgz`,
      '1.0.4': `http://localhost:${internal.port}/x.tgz`,
    };
    const hub = await hubServing(t, 'ssrf-demo', tarballs);

    for (const version of Object.keys(tarballs)) {
      const res = await get(`${hub.url}/proxy/npm/ssrf-demo/-/ssrf-demo-${version}.tgz`);
      t.equal(res.status, 502, `${version}: ${tarballs[version]}`);
      t.equal(res.json().error.code, 'upstream_error');
      t.match(res.json().error.message, /address policy/);
      t.notMatch(
        res.body.toString(),
        /169\.254|127\.0\.0\.1|0\.0\.0\.0|localhost|secret/,
        'what is there is not described',
      );
    }
    t.equal(internal.requests.length, 0, 'the internal server was never reached');
    await hub.hub.artifacts.idle();
    t.equal((await hub.hub.db('artifacts').count({ n: '*' }).first())!.n, 0, 'nothing cached');
  },
);

t.test("tarball URLs are built from the requested name, never the upstream document's own name field", async (t) => {
  const upstream = await startFixtureUpstream({
    handler: (req: IncomingMessage, res: ServerResponse) => {
      if (pathOf(req.url) !== '/plain') return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          name: '../../api/v1/admin',
          'dist-tags': { latest: '1.0.0' },
          versions: {
            '1.0.0': { name: 'other', version: '1.0.0', dist: { tarball: `${upstream.url}/plain/-/plain-1.0.0.tgz` } },
          },
        }),
      );
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
  const doc = (await get(`${hub.url}/proxy/npm/plain`, { accept: 'application/json' })).json();
  t.equal(doc.name, 'plain', 'the served name is the requested one');
  t.equal(doc.versions['1.0.0'].dist.tarball, `${hub.url}/proxy/npm/plain/-/plain-1.0.0.tgz`);
});

/**
 * IPv6 addresses that reach IPv4 ones (issue 26): a dist.tarball at 6to4 or NAT64 spellings of loopback and
 * of the metadata address, at Teredo or at local-use NAT64, is refused by the address policy before any
 * connection (decision 0012's addendum), under the default `[server] forbidden_networks`.
 */
t.test(
  'a dist.tarball at an IPv6 address embedding a forbidden IPv4 one is refused by the address policy',
  async (t) => {
    const tarballs: Record<string, string> = {
      '1.0.0': 'http://[2002:7f00:1::]:8080/x.tgz', // 6to4 of 127.0.0.1
      '1.0.1': 'http://[2002:a9fe:a9fe::1]/latest/meta-data/x.tgz', // 6to4 of 169.254.169.254
      '1.0.2': 'http://[64:ff9b::7f00:1]:8080/x.tgz', // NAT64 well-known prefix, 127.0.0.1
      '1.0.3': 'http://[64:ff9b:1::a00:1]/x.tgz', // local-use NAT64
      '1.0.4': 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x.tgz', // Teredo
    };
    const hub = await hubServing(t, 'ssrf-v6', tarballs);

    for (const version of Object.keys(tarballs)) {
      const res = await get(`${hub.url}/proxy/npm/ssrf-v6/-/ssrf-v6-${version}.tgz`);
      t.equal(res.status, 502, `${version}: ${tarballs[version]}`);
      t.equal(res.json().error.code, 'upstream_error');
      t.match(res.json().error.message, /address policy/, 'refused by the policy, not by a failed connection');
      t.notMatch(res.body.toString(), /2002:|64:ff9b|2001:0/, 'the address is not described');
    }
  },
);
