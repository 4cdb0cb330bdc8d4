import path from 'node:path';
import t from 'tap';
import { rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { filesKind } from './files-kind.js';

t.test('/healthz needs no token; /metrics exposes the hub_ request and cache metrics (moved here from the kinds\' tests)', async (t) => {
  const root = t.testdir({ up: { pkg: { '1.0.0': { 'a.txt': 'file a' } } }, hub: {} });
  const upstream = await startFixtureUpstream({ root: path.join(root, 'up') });
  t.teardown(() => upstream.close());
  const s = await startTestHub({ dir: path.join(root, 'hub'), plugins: [filesKind], registries: [{ name: 'files', type: 'files', upstream: upstream.url }] });
  t.teardown(() => s.close());
  t.equal((await rawRequest(`${s.url}/healthz`)).status, 200);
  const reader = await s.token('alice', { roles: ['reader'] });
  t.equal((await rawRequest(`${s.url}/proxy/files/pkg/1.0.0/a.txt`, { headers: { authorization: `Bearer ${reader}` } })).status, 200);
  const metrics = await rawRequest(`${s.url}/metrics`);
  t.equal(metrics.status, 200, 'no token configured: open, as the kinds\' tests relied on');
  t.match(metrics.body.toString(), /hub_http_request_duration_seconds_count\{[^}]*registry="files"/);
  t.match(metrics.body.toString(), /hub_cache_requests_total\{[^}]*registry="files"/);
});
