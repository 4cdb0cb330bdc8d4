/**
 * Upstream mirrors with the npm kind and the admin health card: the first mirror fails, the packument and
 * the tarball it names (on the second mirror's host) come from the second, verified against the packument's
 * integrity, and /api/v1/admin/health shows each mirror's breaker.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { npmFixtureHandler, startFixtureUpstream } from '@hub/testkit';
import { NPM_FIXTURES, setup } from './setup.js';

t.test(
  'npm through two mirrors: the first fails, the second serves, the health card shows both breakers',
  async (t) => {
    const second = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
    t.teardown(() => second.close());
    const s = await setup(t, {
      registries: (first) => [{ name: 'npm', type: 'npm', mode: 'proxy', upstreams: [first, second.url] }],
      config: { server: { mirror_breaker_failures: 2 } },
    });
    const health = async () => (await s.api('GET', '/api/v1/admin/health')).json.registries[0];
    t.match(await health(), {
      name: 'npm',
      upstream: s.upstream.url,
      upstream_mirrors: {
        fallthrough_on_404: false,
        mirrors: [
          { mirror: s.upstream.url, state: 'closed' },
          { mirror: second.url, state: 'closed' },
        ],
      },
    });

    s.upstream.fault('/', { type: 'status', status: 503 });
    const packument = await s.api('GET', '/proxy/npm/hubdemo', { headers: { accept: 'application/json' } });
    t.equal(packument.status, 200, `the packument, from the second mirror: ${packument.text}`);
    const version = packument.json.versions['1.0.0'];
    t.equal(version.dist.tarball, `${s.base}/hubdemo/-/hubdemo-1.0.0.tgz`, 'links point at hub');

    const tgz = await fetch(version.dist.tarball, { headers: { authorization: `Bearer ${s.adminToken}` } });
    t.equal(tgz.status, 200);
    const bytes = Buffer.from(await tgz.arrayBuffer());
    t.ok(bytes.equals(fs.readFileSync(path.join(NPM_FIXTURES, 'hubdemo/-/hubdemo-1.0.0.tgz'))), 'the fixture tarball');
    t.equal(
      `sha512-${crypto.createHash('sha512').update(bytes).digest('base64')}`,
      version.dist.integrity,
      "matches the packument's integrity",
    );
    // Two failures of the first mirror: the packument and the tarball (the tarball route reuses the cached packument).
    t.equal(
      s.upstream.count('/hubdemo/-/'),
      1,
      "the tarball URL on the second mirror's host was asked of the first mirror first",
    );
    t.equal(second.count('/hubdemo/-/hubdemo-1.0.0.tgz'), 1);

    const card = await health();
    t.match(card.upstream_mirrors.mirrors, [
      {
        mirror: s.upstream.url,
        base: s.upstream.url,
        state: 'open',
        consecutive_failures: 2,
        last_error: 'status 503',
        last_error_at: String,
        last_success_at: null,
      },
      { mirror: second.url, state: 'closed', consecutive_failures: 0, last_error: null, last_success_at: String },
    ]);
    const metrics = await s.api('GET', '/metrics');
    t.match(metrics.text, `hub_upstream_mirror_state{registry="npm",mirror="${s.upstream.url}"} 2`);
    t.match(
      metrics.text,
      `hub_upstream_mirror_failovers_total{registry="npm",from="${s.upstream.url}",to="${second.url}"} 2`,
    );

    await s.hub.artifacts.idle();
    const before = s.upstream.count();
    t.equal((await s.api('GET', '/proxy/npm/hubdep', { headers: { accept: 'application/json' } })).status, 200);
    t.equal(s.upstream.count(), before, 'the open mirror is skipped');
  },
);
