import t from 'tap';
import { npmEnv } from '@hub/testkit';
import { setup } from '../setup.js';

t.test('npm install through hub with the .npmrc _authToken line of docs/security.md', async (t) => {
  const s = await setup(t);
  const token = await s.token('ci', { roles: ['reader'] });
  const p = npmEnv(t, `${s.base}/`, token);
  t.match(await p.install('hubdemo@1.1.0', '@hubtest/scoped'), { code: 0 });
  t.equal(p.installed('hubdemo')?.version, '1.1.0');
  t.equal(p.installed('hubdep')?.version, '1.0.0', 'the dependency came through hub too');
  t.equal(p.installed('@hubtest/scoped')?.version, '1.0.0', 'a scoped package');
  const tarballs = s.upstream.requests.filter((r) => r.url.endsWith('.tgz')).length;
  t.equal(tarballs, 3, 'each tarball fetched from the upstream once');
  t.equal(
    s.upstream.count((r) => Boolean(r.headers.authorization)),
    0,
    'the client token never reaches the upstream',
  );
});

t.test('npm install with an invalid token is refused with 401', async (t) => {
  const s = await setup(t);
  const p = npmEnv(t, `${s.base}/`, 'hub_invalid_token');
  const res = await p.install('hubdemo');
  t.not(res.code, 0, 'npm install fails');
  t.match(res.stderr, /401|E401/, 'npm reports the 401');
  t.equal(s.upstream.count(), 0, 'nothing was fetched upstream');
});

t.test(
  "npm install of a blocked version shows the block's reason on npm's error line, never [object Object] (#26)",
  async (t) => {
    const s = await setup(t);
    await s.hub.services.blocks.add({
      registry: 'npm',
      package_name: 'hubdep',
      version: '1.0.0',
      reason: 'steals tokens',
      by: 'security',
    });
    const p = npmEnv(t, `${s.base}/`, await s.token('ci', { roles: ['reader'] }));
    const res = await p.install('hubdemo@1.1.0');
    t.not(res.code, 0, 'npm install fails');
    t.notMatch(res.stderr, /object Object/, 'no [object Object]');
    t.match(
      res.stderr,
      /npm error 403 .*- GET \S+hubdep-1\.0\.0\.tgz - hubdep 1\.0\.0 is blocked by security: steals tokens/,
      `the reason ends npm's error line: ${res.stderr}`,
    );
  },
);
