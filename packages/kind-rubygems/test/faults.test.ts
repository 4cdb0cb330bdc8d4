import t from 'tap';
import { sendFile } from '@hub/testkit';
import { ANON, FIXTURES, fixture, get, setup } from './setup.js';

const GEM = '/gems/hubdemo-1.0.0.gem';

t.test('upstream 5xx with nothing cached: 502, and nothing is cached', async (t) => {
  const s = await setup(t, { config: ANON });
  s.upstream.fault('/info/hubdemo', { type: 'status', status: 503 });
  const viaListing = await get(`${s.base}${GEM}`);
  t.equal(viaListing.status, 502, 'the listing failed: 502');
  t.equal(viaListing.json().error.code, 'upstream_error');
  t.equal(s.upstream.count('/gems/'), 0, 'the .gem was never asked for without its checksum');
  t.equal((await get(`${s.base}/info/hubdemo`)).status, 502, 'info: 502');
  t.equal((await get(`${s.base}/versions`)).status, 200, 'other documents unaffected');

  s.upstream.clearFaults();
  s.upstream.fault(GEM, { type: 'status', status: 500 });
  const gem = await get(`${s.base}${GEM}`);
  t.equal(gem.status, 502, 'the .gem failed: 502');
  await s.hub.artifacts.idle();
  t.equal((await s.hub.db('artifacts').count({ n: '*' }))[0]!.n, 0, 'no artifact row');

  s.upstream.clearFaults();
  t.equal((await get(`${s.base}${GEM}`)).status, 200, 'served once the upstream is back');
});

t.test('upstream down: cached gems and documents are still served', async (t) => {
  const s = await setup(t, { config: ANON, registry: { metadata_ttl_secs: 0 } });
  for (const p of [
    GEM,
    '/quick/Marshal.4.8/hubdemo-1.0.0.gemspec.rz',
    '/info/hubdemo',
    '/versions',
    '/api/v1/gems/hubdemo.json',
    '/specs.4.8.gz',
  ])
    t.equal((await get(`${s.base}${p}`)).status, 200, `${p} fetched`);
  await s.hub.artifacts.idle();
  s.upstream.down();
  const gem = await get(`${s.base}${GEM}`);
  t.equal(gem.status, 200, 'the gem from the cache');
  t.same(gem.body, fixture(`upstream${GEM}`));
  t.equal(
    (await get(`${s.base}/quick/Marshal.4.8/hubdemo-1.0.0.gemspec.rz`)).status,
    200,
    'the gemspec from the cache',
  );
  const info = await get(`${s.base}/info/hubdemo`);
  t.equal(info.status, 200, 'info: the last good copy');
  t.equal(info.headers.get('x-hub-stale'), '1', 'marked stale');
  t.equal((await get(`${s.base}/versions`)).status, 200);
  t.equal((await get(`${s.base}/api/v1/gems/hubdemo.json`)).json().name, 'hubdemo');
  t.equal((await get(`${s.base}/gems/hubdemo-1.1.0.gem`)).status, 502, 'an uncached gem: 502');
});

t.test('a 200 HTML page is refused and not cached', async (t) => {
  const s = await setup(t, { config: ANON });
  for (const p of [
    GEM,
    '/quick/Marshal.4.8/hubdemo-1.0.0.gemspec.rz',
    '/info/hubdep',
    '/versions',
    '/names',
    '/api/v1/gems/hubdemo.json',
    '/specs.4.8.gz',
  ]) {
    s.upstream.fault(p, { type: 'html200' }, 1);
    const res = await get(`${s.base}${p}`);
    t.equal(res.status, 502, `${p}: 502`);
    t.equal(res.json().error.code, 'upstream_error');
  }
  await s.hub.artifacts.idle();
  t.equal((await s.hub.db('artifacts').count({ n: '*' }))[0]!.n, 0, 'no artifact row');
  t.equal(
    (
      await s.hub
        .db('metadata')
        .where('cache_key', 'in', ['versions', 'names', 'specs.4.8.gz', 'info:hubdep'])
        .count({ n: '*' })
    )[0]!.n,
    0,
    'no document stored',
  );
  const gem = await get(`${s.base}${GEM}`);
  t.equal(gem.status, 200, 'the real gem afterwards');
  t.same(gem.body, fixture(`upstream${GEM}`));
});

t.test('a gem whose sha256 is not the one the compact index publishes: 502, not cached', async (t) => {
  // The upstream serves hubdep's (valid) gem under hubdemo's name.
  let swap = true;
  const s = await setup(t, {
    config: ANON,
    handler: async (req, res, up) => {
      if (!swap || req.url !== GEM) return false;
      await sendFile(req, res, up, `${FIXTURES}upstream/gems/hubdep-1.0.0.gem`);
      return true;
    },
  });
  const res = await get(`${s.base}${GEM}`).catch(() => null);
  t.ok(
    res === null || res.status === 502 || !res.body.equals(fixture('upstream/gems/hubdep-1.0.0.gem')),
    'never a clean 200 of the wrong bytes',
  );
  await s.hub.artifacts.idle();
  t.equal((await s.hub.db('artifacts').count({ n: '*' }))[0]!.n, 0, 'no artifact row');
  swap = false;
  const good = await get(`${s.base}${GEM}`);
  t.equal(good.status, 200);
  t.same(good.body, fixture(`upstream${GEM}`));
});

for (const type of ['wrong-bytes', 'reset-mid-body'] as const) {
  // reset-mid-body: the runtime's Flight awaits fsp.open before it reads the upstream body, so a reset in
  // that window errors the body stream with no listener (an uncaught exception); reported to the runtime.
  t.test(`a gem the upstream corrupts (${type}) is not cached`, async (t) => {
    const s = await setup(t, { config: ANON });
    s.upstream.fault(GEM, { type }, 1);
    const res = await get(`${s.base}${GEM}`).catch(() => null);
    t.ok(
      res === null || res.status !== 200 || res.body.equals(fixture(`upstream${GEM}`)),
      'never a clean 200 of wrong bytes',
    );
    await s.hub.artifacts.idle();
    t.equal((await s.hub.db('artifacts').count({ n: '*' }))[0]!.n, 0, 'no artifact row');
    t.equal((await get(`${s.base}${GEM}`)).status, 200, 'the next request fetches it whole');
  });
}
