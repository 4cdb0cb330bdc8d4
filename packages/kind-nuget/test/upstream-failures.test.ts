import path from 'node:path';
import t, { type Test } from 'tap';
import { pathOf, sendFile, type FixtureHandler, type RawResponse } from '@hub/testkit';
import { FIXTURES, get, isZip, OPEN, setup, type NugetSetup } from './setup.js';

/**
 * A digest is known only at the end of the body, and small bodies may be over before the client is
 * answered: then it is a 502; otherwise the answer started as 200 and the connection is cut before the
 * last byte (the runtime holds it back until the digest matched). Never a complete 200.
 */
function refused(t: Test, res: RawResponse | Error) {
  // The cut is a reset (ECONNRESET: "aborted" or "socket hang up"), never a refused connection.
  if (res instanceof Error)
    return t.equal(
      (res as NodeJS.ErrnoException).code,
      'ECONNRESET',
      `the connection was cut before the last byte (${res.message})`,
    );
  t.equal(res.status, 502, 'refused with 502');
  t.equal(res.json().error.code, 'upstream_error');
}

const cached = async (s: NugetSetup) => Number((await s.hub.db('artifacts').count({ n: '*' }))[0]!.n);

/** While `on.value`, the upstream serves another (valid) .nupkg at `from`. */
function swap(from: string, to: string, on: { value: boolean }): FixtureHandler {
  return async (req, res, up) => {
    if (!on.value || pathOf(req.url) !== from) return false;
    await sendFile(req, res, up, path.join(FIXTURES, 'v3-flatcontainer', to));
    return true;
  };
}

t.test('metadata: the last good copy is served (marked stale) while the upstream fails', async (t) => {
  const s = await setup(t, { config: OPEN, registry: { metadata_ttl_secs: 0 } });
  t.same((await get(`${s.flat}/hubdemo/index.json`)).json().versions, ['1.0.0', '1.1.0']);
  s.upstream.down();
  const stale = await get(`${s.flat}/hubdemo/index.json`);
  t.equal(stale.status, 200);
  t.equal(stale.headers.get('x-hub-stale'), '1');
  t.same(stale.json().versions, ['1.0.0', '1.1.0']);
  const never = await get(`${s.flat}/hubdep/index.json`);
  t.equal(never.status, 502, 'a listing never fetched fails');
  t.match(never.json().error.code, /^upstream_(error|timeout)$/);
});

t.test('the upstream service index failing with nothing cached gives 502; nothing else is asked', async (t) => {
  const s = await setup(t, { config: OPEN });
  s.upstream.fault('/v3/index.json', { type: 'status', status: 500 });
  const res = await get(`${s.flat}/hubdemo/index.json`);
  t.equal(res.status, 502);
  t.equal(res.json().error.code, 'upstream_error');
  t.equal(s.upstream.count(), 1, 'only the service index was asked');
  s.upstream.clearFaults();
  s.upstream.fault('/v3/index.json', { type: 'html200' });
  t.equal((await get(`${s.flat}/hubdep/index.json`)).status, 502, 'an HTML service index is refused too');
});

// The .nupkg and the listings are kindConformance's; the .nuspec has its own check.
t.test('a 200 HTML error page for a .nuspec is never cached', async (t) => {
  const s = await setup(t, { config: OPEN });
  for (const [p, url] of [
    ['/v3-flatcontainer/hubdemo/1.0.0/hubdemo.nuspec', `${s.flat}/hubdemo/1.0.0/hubdemo.nuspec`],
  ] as const) {
    s.upstream.fault(p, { type: 'html200' }, 1);
    const res = await get(url);
    t.equal(res.status, 502, `${url}: refused`);
    t.equal(res.json().error.code, 'upstream_error');
    await s.hub.artifacts.idle();
    const ok = await get(url);
    t.equal(ok.status, 200, `${url}: the next request fetches again and works`);
    t.notMatch(ok.body.toString('latin1'), /<html/i);
  }
  await s.hub.artifacts.idle();
  t.equal(await cached(s), 1, 'only the good .nuspec is cached');
});

t.test('hash mismatch against the registration packageHash: 502, nothing cached', async (t) => {
  const on = { value: true };
  const s = await setup(t, {
    config: OPEN,
    handler: swap('/v3-flatcontainer/hubdemo/1.0.0/hubdemo.1.0.0.nupkg', 'hubdemo/1.1.0/hubdemo.1.1.0.nupkg', on),
  });
  const url = `${s.flat}/hubdemo/1.0.0/hubdemo.1.0.0.nupkg`;
  refused(t, await get(url).catch((e: Error) => e));
  await s.hub.artifacts.idle();
  t.equal(await cached(s), 0, 'nothing cached');
  on.value = false;
  const good = await get(url);
  t.equal(good.status, 200, 'the right bytes pass the digest');
  await s.hub.artifacts.idle();
  t.equal(await cached(s), 1);
});

t.test('hash mismatch against the catalog leaf (page not inlined): 502, nothing cached', async (t) => {
  const on = { value: true };
  const s = await setup(t, {
    config: OPEN,
    handler: swap('/v3-flatcontainer/hubdep/1.0.0/hubdep.1.0.0.nupkg', 'hubdemo/1.0.0/hubdemo.1.0.0.nupkg', on),
  });
  const url = `${s.flat}/hubdep/1.0.0/hubdep.1.0.0.nupkg`;
  refused(t, await get(url).catch((e: Error) => e));
  await s.hub.artifacts.idle();
  t.equal(await cached(s), 0, 'nothing cached');
  t.equal(s.upstream.count('/v3/registration-gz-semver2/hubdep/page/1.0.0/1.0.0.json'), 1, 'the page was fetched');
  t.equal(
    s.upstream.count('/v3/catalog0/data/2024.01.01.00.00.00/hubdep.1.0.0.json'),
    1,
    'the catalog leaf was fetched',
  );
  on.value = false;
  t.equal((await get(url)).status, 200);
});

t.test('without a registration the .nupkg is still served, checked as a zip', async (t) => {
  const s = await setup(t, { config: OPEN });
  s.upstream.fault('/v3/registration-gz-semver2/', { type: 'status', status: 500 });
  const res = await get(`${s.flat}/hubdemo/1.1.0/hubdemo.1.1.0.nupkg`);
  t.equal(res.status, 200);
  t.ok(isZip(res.body));
  await s.hub.artifacts.idle();
  t.equal(await cached(s), 1);

  // Cut short without a Content-Length: only the zip structure can tell (no end-of-central-directory record).
  s.upstream.fault('/v3-flatcontainer/hubdep/', { type: 'close-mid-body-no-length' });
  refused(t, await get(`${s.flat}/hubdep/1.0.0/hubdep.1.0.0.nupkg`).catch((e: Error) => e));
  await s.hub.artifacts.idle();
  t.equal(await cached(s), 1, 'the truncated package is not cached');
});

t.test('blocked packages and versions: 403 package_blocked, no upstream request', async (t) => {
  const s = await setup(t, { config: OPEN });
  await s.hub.services.blocks.add({
    registry: 'nuget',
    package_name: 'hubdemo',
    version: null,
    reason: 'malware',
    by: 'admin',
  });
  await s.hub.services.blocks.add({
    registry: 'nuget',
    package_name: 'hubdep',
    version: '1.0.0',
    reason: null,
    by: 'system:upstream-audit',
  });
  for (const url of [
    `${s.flat}/hubdemo/index.json`,
    `${s.flat}/HubDemo/1.0.0/HubDemo.1.0.0.nupkg`,
    `${s.flat}/hubdemo/1.1.0/hubdemo.nuspec`,
    `${s.reg}/HUBDEMO/index.json`,
    `${s.reg}/hubdemo/1.0.0.json`,
    `${s.flat}/hubdep/1.0.0/hubdep.1.0.0.nupkg`,
    `${s.flat}/HubDep/1.0.0.0/HubDep.1.0.0.0.nupkg`,
  ]) {
    const res = await get(url);
    t.equal(res.status, 403, url);
    t.equal(res.json().error.code, 'package_blocked');
  }
  t.match(
    (await get(`${s.flat}/hubdemo/index.json`)).json().error.message,
    /admin: malware/,
    'names who blocked it and why',
  );
  t.equal(s.upstream.count(), 0, 'no upstream request');
  t.equal((await get(`${s.flat}/hubdep/index.json`)).status, 200, 'a version block leaves the listing alone');
});
