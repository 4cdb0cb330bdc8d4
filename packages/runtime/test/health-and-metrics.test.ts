import t from 'tap';
import { rawRequest } from '@hub/testkit';
import { startFilesHub } from './files-hub.js';

t.test(
  "/healthz needs no token; /metrics exposes the hub_ request and cache metrics (moved here from the kinds' tests)",
  async (t) => {
    const s = await startFilesHub(t);
    t.equal((await rawRequest(`${s.url}/healthz`)).status, 200);
    const reader = await s.token('alice', { roles: ['reader'] });
    t.equal((await rawRequest(s.fileUrl, { headers: { authorization: `Bearer ${reader}` } })).status, 200);
    const metrics = await rawRequest(`${s.url}/metrics`);
    t.equal(metrics.status, 200, "no token configured: open, as the kinds' tests relied on");
    t.match(metrics.body.toString(), /hub_http_request_duration_seconds_count\{[^}]*registry="files"/);
    t.match(metrics.body.toString(), /hub_cache_requests_total\{[^}]*registry="files"/);
  },
);
