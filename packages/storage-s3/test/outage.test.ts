import path from 'node:path';
import t from 'tap';
import generic from '@hub/kind-path/generic';
import { rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import storageS3 from '../src/index.js';
import { startS3, s3Storage } from './s3-server.js';

t.test(
  'S3 unreachable: a cached artifact not in memory answers 503 service_unavailable, not 500; served again once S3 is back (#12)',
  async (t) => {
    const top = t.testdir({ up: { 'a.bin': 'artifact a' } });
    const s3 = await startS3(t, path.join(top, 's3'));
    const upstream = await startFixtureUpstream({ root: path.join(top, 'up') });
    t.teardown(() => upstream.close());
    const hub = await startTestHub({
      dir: path.join(top, 'hub'),
      plugins: [generic, storageS3],
      registries: [{ name: 'files', type: 'generic', mode: 'proxy', upstream: upstream.url }],
      // Nothing kept in memory: every hit reads the bucket.
      config: {
        auth: { anonymous: ['source:read'] },
        storage: s3Storage(s3, path.join(top, 'spool')),
        cache: { memory_bytes: 0 },
      },
    });
    t.teardown(() => hub.close());
    const url = `${hub.url}/proxy/files/a.bin`;
    t.equal((await rawRequest(url)).status, 200);
    await hub.hub.artifacts.idle();
    t.equal((await rawRequest(url)).headers.get('x-hub-cache'), 'hit');

    s3.down();
    const started = Date.now();
    const res = await rawRequest(url);
    t.equal(res.status, 503);
    t.match(JSON.parse(res.body.toString()), {
      error: { code: 'service_unavailable', message: 'blob storage is unavailable; try again shortly' },
    });
    t.ok(Date.now() - started < 10_000, `answered in ${Date.now() - started} ms`);
    t.equal(upstream.count('/a.bin'), 1, 'the upstream was not asked again');

    s3.up();
    const back = await rawRequest(url);
    t.equal(back.status, 200);
    t.equal(back.body.toString(), 'artifact a');
  },
);
