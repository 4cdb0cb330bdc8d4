import t from 'tap';
import { rawRequest } from '@hub/testkit';
import { startFilesHub } from './files-hub.js';

/**
 * The token styles clients send, for every kind alike (moved here from the kinds' tests): Bearer (npm, go,
 * terraform), Basic with the token as password (maven, nuget, gem, bundler, apt), the bare token (cargo).
 */
t.test(
  'registry routes: Bearer, Basic with the token as password, a bare token; 401 challenges for both; 403 without source:read',
  async (t) => {
    const s = await startFilesHub(t);
    const upstream = s.upstream;
    const get = (authorization?: string) => rawRequest(s.fileUrl, { headers: authorization ? { authorization } : {} });

    const anon = await get();
    t.equal(anon.status, 401);
    t.equal(anon.json().error.code, 'unauthenticated');
    t.match(anon.headers.get('www-authenticate') ?? '', /Bearer/, 'challenges for Bearer');
    t.match(
      anon.headers.get('www-authenticate') ?? '',
      /Basic realm="hub"/,
      'and for Basic (mvn, NuGet and gem answer only that)',
    );
    t.equal(upstream.count(), 0, 'refused before any upstream request');

    const reader = await s.token('alice', { roles: ['reader'] });
    t.equal((await get(`Bearer ${reader}`)).status, 200, 'Bearer');
    t.equal(
      (await get(`Basic ${Buffer.from(`alice:${reader}`).toString('base64')}`)).status,
      200,
      'Basic with the token as password',
    );
    t.equal(
      (await get(`Basic ${Buffer.from(`anyone:${reader}`).toString('base64')}`)).status,
      200,
      'the Basic user name is not checked',
    );
    t.equal((await get(reader)).status, 200, 'a bare token (cargo style)');

    const wrong = await get('Bearer hub_not_a_real_token');
    t.equal(wrong.status, 401, 'a wrong token');
    t.equal(wrong.json().error.code, 'unauthenticated');
    t.equal((await get('hub_not_a_real_token')).status, 401, 'a wrong bare token');

    const auditor = await s.token('bob', { roles: ['auditor'] });
    const denied = await get(`Bearer ${auditor}`);
    t.equal(denied.status, 403, 'a token without source:read');
    t.equal(denied.json().error.code, 'forbidden');
  },
);
