import t from 'tap';
import { npmEnv } from '@hub/testkit';
import { start } from '../workload-hub.js';

/** Issue 27: a CI job's identity token exchanged for a short-lived hub token, then a real `npm publish` with it. */

t.test('a good exchange answers a hub token, and npm publishes with it to the scoped registry only', async (t) => {
  const s = await start(t);
  const res = await s.exchange({ token: await s.good() });
  t.equal(res.status, 201);
  t.equal(res.headers.get('cache-control'), 'no-store');
  t.match(res.json, {
    token: /^hub_/,
    user_id: 'workload:web',
    workload: 'web',
    roles: ['publisher'],
    registries: ['internal'],
  });
  const ttl = Date.parse(res.json.expires_at) - Date.now();
  t.ok(ttl > 890_000 && ttl <= 900_000, `expires in ~900 s (${ttl} ms)`);

  const ci = npmEnv(t, `${s.hub.url}/proxy/internal/`, res.json.token);
  const dir = ci.makePackage({ name: '@acme/web', version: '1.0.0' }, 'module.exports = 1;\n');
  const published = await ci.npm(['publish'], dir);
  t.equal(published.code, 0, published.stderr);
  const installed = await ci.install('@acme/web');
  t.equal(installed.code, 0, installed.stderr);
  t.equal(ci.installed('@acme/web')?.version, '1.0.0');

  // The registry scope: the same token may not publish to another registry.
  const elsewhere = npmEnv(t, `${s.hub.url}/proxy/other/`, res.json.token);
  const refused = await elsewhere.npm(['publish'], elsewhere.makePackage({ name: '@acme/web', version: '1.0.0' }));
  t.not(refused.code, 0);
  t.match(refused.stderr, /403/);

  const rows = await s.auditRows();
  t.match(rows.at(-1), {
    outcome: 'allowed',
    status: 201,
    user_id: 'workload:web',
    token_id: res.json.id,
    detail: /^web: sub repo:acme\/web/,
  });
});
