import { readFileSync } from 'node:fs';
import t from 'tap';
import { FIXTURES, get, setup } from './setup.js';

/** hubdemo 1.0.0 was published 2024-01-02 and 1.1.0 on 2024-02-01: a cool-down reaching back to mid-January hides 1.1.0 only. */
const coolDown = () => Math.floor((Date.now() - Date.parse('2024-01-17T00:00:00Z')) / 1000);

t.test('security profile min_release_age_secs: too-new versions are left out of listings and refused', async (t) => {
  const s = await setup(t, {
    registry: { security: { min_release_age_secs: coolDown() } },
    config: { auth: { anonymous: ['source:read'] } },
  });
  const full = (await get(`${s.base}/hubdemo`, { accept: 'application/json' })).json();
  t.same(Object.keys(full.versions), ['1.0.0'], 'the full packument lists only versions old enough');
  t.equal(full['dist-tags'].latest, '1.0.0', 'latest moves back to the newest old-enough version');
  t.notOk('1.1.0' in full.time, 'nor does its time map name it');
  const corgi = (await get(`${s.base}/hubdemo`, { accept: 'application/vnd.npm.install-v1+json' })).json();
  t.same(Object.keys(corgi.versions), ['1.0.0'], 'the abbreviated one too');

  const latest = await get(`${s.base}/hubdemo`, { accept: '*/*' });
  t.equal(latest.status, 200);
  t.same(
    latest.body,
    readFileSync(`${FIXTURES}hubdemo/-/hubdemo-1.0.0.tgz`),
    'the latest tarball route serves the newest old-enough version',
  );

  const refused = await get(`${s.base}/hubdemo/1.1.0/tarball`);
  t.equal(refused.status, 403);
  t.match(refused.json(), {
    error: {
      code: 'package_blocked',
      message:
        /hubdemo 1\.1\.0 was published 2024-02-01T00:00:00\.000Z, within the registry's min_release_age_secs \(\d+\); it is served from 20\d\d-/,
    },
  });
  t.match(
    refused.headers.get('npm-notice'),
    /^hub: hubdemo 1\.1\.0 was published 2024-02-01/,
    'the reason in the header npm prints',
  );
  t.equal(s.upstream.count('/hubdemo/-/hubdemo-1.1.0.tgz'), 0, 'the too-new tarball was never fetched');
  t.equal((await get(`${s.base}/hubdemo/-/hubdemo-1.1.0.tgz`)).status, 403, 'by the registry path too');
  const line = await fetch(`${s.base}/hubdemo/1.1.0/tarball`);
  await line.arrayBuffer();
  t.match(
    line.statusText,
    /^Forbidden: hubdemo 1\.1\.0 was published 2024-02-01/,
    'the status line carries the reason, for clients that print only that',
  );
  t.equal((await get(`${s.base}/hubdemo/1.0.0/tarball`)).status, 200);
});

t.test('without a cool-down every version is listed and served', async (t) => {
  const s = await setup(t, { registry: { security: {} }, config: { auth: { anonymous: ['source:read'] } } });
  t.same(Object.keys((await get(`${s.base}/hubdemo`, { accept: 'application/json' })).json().versions).sort(), [
    '1.0.0',
    '1.1.0',
  ]);
  t.equal((await get(`${s.base}/hubdemo/1.1.0/tarball`)).status, 200);
});
