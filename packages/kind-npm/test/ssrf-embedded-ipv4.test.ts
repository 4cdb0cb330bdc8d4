import type { IncomingMessage, ServerResponse } from 'node:http';
import t from 'tap';
import { pathOf, startFixtureUpstream, startTestHub } from '@hub/testkit';
import npm from '../src/index.js';
import { get } from './setup.js';

/**
 * IPv6 addresses that reach IPv4 ones (issue 26): a dist.tarball at 6to4 or NAT64 spellings of loopback and
 * of the metadata address, at Teredo or at local-use NAT64, is refused by the address policy before any
 * connection (decision 0012's addendum), under the default `[server] forbidden_networks`.
 */
t.test('a dist.tarball at an IPv6 address embedding a forbidden IPv4 one is refused by the address policy', async (t) => {
  const tarballs: Record<string, string> = {
    '1.0.0': 'http://[2002:7f00:1::]:8080/x.tgz', // 6to4 of 127.0.0.1
    '1.0.1': 'http://[2002:a9fe:a9fe::1]/latest/meta-data/x.tgz', // 6to4 of 169.254.169.254
    '1.0.2': 'http://[64:ff9b::7f00:1]:8080/x.tgz', // NAT64 well-known prefix, 127.0.0.1
    '1.0.3': 'http://[64:ff9b:1::a00:1]/x.tgz', // local-use NAT64
    '1.0.4': 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x.tgz', // Teredo
  };
  const packument = {
    name: 'ssrf-v6',
    'dist-tags': { latest: '1.0.4' },
    versions: Object.fromEntries(Object.entries(tarballs).map(([v, url]) => [v, { name: 'ssrf-v6', version: v, dist: { tarball: url } }])),
  };
  const upstream = await startFixtureUpstream({
    handler: (req: IncomingMessage, res: ServerResponse) => {
      if (pathOf(req.url) !== '/ssrf-v6') return false;
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
    const res = await get(`${hub.url}/proxy/npm/ssrf-v6/-/ssrf-v6-${version}.tgz`);
    t.equal(res.status, 502, `${version}: ${tarballs[version]}`);
    t.equal(res.json().error.code, 'upstream_error');
    t.match(res.json().error.message, /address policy/, 'refused by the policy, not by a failed connection');
    t.notMatch(res.body.toString(), /2002:|64:ff9b|2001:0/, 'the address is not described');
  }
});
