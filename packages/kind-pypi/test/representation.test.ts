import { gunzipSync } from 'node:zlib';
import t from 'tap';
import { rawRequest } from '@hub/testkit';
import { setup } from './setup.js';

const JSON_FORM = 'application/vnd.pypi.simple.v1+json';
type Page = { files: Array<{ filename: string; yanked?: unknown }> };

// Decision 0074: the page is a memoised representation (ETag, 304, gzip built once); a block changes it at once.
t.test(
  'a project page hit: gzip decodes to the identity page, 304 on its ETag, and a block marks the version at once',
  async (t) => {
    const s = await setup(t, { config: { auth: { anonymous: ['source:read'] } } });
    const page = (headers: Record<string, string> = {}) =>
      rawRequest(`${s.base}/simple/hub-demo/`, { headers: { accept: JSON_FORM, ...headers } });
    const identity = await page();
    t.equal(identity.status, 200);
    const gz = await page({ 'accept-encoding': 'gzip' });
    t.equal(gz.headers.get('content-encoding'), 'gzip');
    t.ok(gunzipSync(gz.body).equals(identity.body), 'gzip decodes to the identity bytes');
    const etag = gz.headers.get('etag')!;
    t.equal((await page({ 'accept-encoding': 'gzip', 'if-none-match': etag })).status, 304, '304 on its ETag');

    await s.hub.services.blocks.add({
      registry: 'py',
      package_name: 'hub-demo',
      version: '1.1.0',
      reason: 'bad build',
      by: 'admin',
    });
    const after = await page({ 'accept-encoding': 'gzip', 'if-none-match': etag });
    t.equal(after.status, 200, 'the copy the client holds is no longer current');
    t.not(after.headers.get('etag'), etag, 'a new ETag');
    const files = (JSON.parse(gunzipSync(after.body).toString('utf8')) as Page).files;
    const blocked = files.filter((f) => f.filename.startsWith('hub_demo-1.1.0'));
    t.ok(
      blocked.length > 0 && blocked.every((f) => typeof f.yanked === 'string' && f.yanked.includes('bad build')),
      'the blocked version is marked yanked, with the reason, in the compressed page',
    );
  },
);
