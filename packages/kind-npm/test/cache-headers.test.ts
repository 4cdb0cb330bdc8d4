import t from 'tap';
import { get, setup } from './setup.js';

// Behind a shared cache (a CDN, a corporate proxy), `public` hands a response to anyone who asks next.
t.test('an artifact that needs a token is private; with anonymous read it is public and immutable', async (t) => {
  const closed = await setup(t);
  const reader = await closed.token('rita', { roles: ['reader'] });
  const res = await get(`${closed.base}/hubdemo/1.0.0/tarball`, { authorization: `Bearer ${reader}` });
  t.equal(res.status, 200);
  t.equal(res.headers.get('cache-control'), 'private, max-age=31536000, immutable');
  await closed.hub.artifacts.idle();
  const again = await get(`${closed.base}/hubdemo/1.0.0/tarball`, { authorization: `Bearer ${reader}` });
  t.equal(again.headers.get('x-hub-cache'), 'hit');
  t.equal(again.headers.get('cache-control'), 'private, max-age=31536000, immutable', 'from the cache too');

  const open = await setup(t, { config: { auth: { anonymous: ['source:read'] } } });
  const pub = await get(`${open.base}/hubdemo/1.0.0/tarball`);
  t.equal(pub.headers.get('cache-control'), 'public, max-age=31536000, immutable');

  // Anyone may read hubdep (an allow policy with no subject), nobody anonymous may read hubdemo.
  const scoped = await setup(t, {
    config: {
      auth: { anonymous: [], policies: [{ effect: 'allow', permissions: ['source:read'], packages: ['hubdep'] }] },
    },
  });
  const shared = await get(`${scoped.base}/hubdep/1.0.0/tarball`);
  t.equal(shared.status, 200);
  t.match(shared.headers.get('cache-control'), /^public/, 'a package anyone may read is public');
  const admin = await get(`${scoped.base}/hubdemo/1.0.0/tarball`, { authorization: `Bearer ${scoped.adminToken}` });
  t.equal(admin.status, 200);
  t.match(admin.headers.get('cache-control'), /^private/, 'its neighbour that needs a token is private');
});

t.test(
  'the mutable /<package> URL (latest tarball or packument by Accept) varies on Accept and is revalidated',
  async (t) => {
    const s = await setup(t, { config: { auth: { anonymous: ['source:read'] } } });
    const latest = await get(`${s.base}/hubdemo`);
    t.equal(latest.status, 200);
    t.equal(latest.headers.get('cache-control'), 'no-cache', 'no long max-age on a URL whose answer changes');
    t.match(latest.headers.get('vary'), /Accept/);
    for (const accept of ['application/json', 'application/vnd.npm.install-v1+json']) {
      const doc = await get(`${s.base}/hubdemo`, { accept });
      t.equal(doc.headers.get('cache-control'), 'no-cache', accept);
      t.match(doc.headers.get('vary'), /Accept/, accept);
    }
  },
);
