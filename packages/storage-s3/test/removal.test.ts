import path from 'node:path';
import t from 'tap';
import npm from '@hub/kind-npm';
import { npmFixtureHandler, rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import storageS3 from '../src/index.js';
import { startS3, s3Storage } from './s3-server.js';
import { blobKey, NPM_FIXTURES, sha256 } from './setup.js';

t.test('purge and retention delete the object from the bucket (#12)', async (t) => {
  const top = t.testdir();
  const s3 = await startS3(t, path.join(top, 's3'));
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: path.join(top, 'hub'),
    plugins: [npm, storageS3],
    registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
    config: { auth: { anonymous: ['source:read'] }, storage: s3Storage(s3, path.join(top, 'spool')) },
  });
  t.teardown(() => hub.close());
  const fetchVersion = async (v: string) => {
    const res = await rawRequest(`${hub.url}/proxy/npm/hubdemo/-/hubdemo-${v}.tgz`);
    t.equal(res.status, 200);
    await hub.hub.artifacts.idle();
    const key = blobKey(sha256(res.body));
    t.ok((await s3.keys()).includes(key), `${v} is in the bucket`);
    return key;
  };

  const purged = await fetchVersion('1.0.0');
  t.equal(await hub.hub.artifacts.purge('npm', 'hubdemo', '1.0.0').then((r) => r.length), 1);
  t.notOk((await s3.keys()).includes(purged), 'a purge deletes the object');
  const again = await rawRequest(`${hub.url}/proxy/npm/hubdemo/-/hubdemo-1.0.0.tgz`);
  t.equal(again.headers.get('x-hub-cache'), 'miss', 'and the next request fetches it again');
  await hub.hub.artifacts.idle();

  const reclaimed = await fetchVersion('1.1.0');
  const row = await hub.hub
    .db('artifacts')
    .where({ registry: 'npm', version: '1.1.0' })
    .first('cache_key', 'blob_sha256');
  // What retention calls for each row it removes (idle for longer than max_idle, or least recently used).
  if (!row) throw new Error('no row for 1.1.0');
  t.ok(await hub.hub.artifacts.reclaim('npm', row, Date.now() + 60_000));
  t.notOk((await s3.keys()).includes(reclaimed), 'retention deletes the object');
});
