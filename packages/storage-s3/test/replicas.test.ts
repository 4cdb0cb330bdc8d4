import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import npm from '@hub/kind-npm';
import {
  hubOnDatabase,
  npmFixtureHandler,
  rawRequest,
  startFixtureUpstream,
  startTestHub,
  storeTiers,
} from '@hub/testkit';
import storageS3 from '../src/index.js';
import { startS3, s3Storage } from './s3-server.js';
import { blobKey, NPM_FIXTURES, sha256, spoolFiles } from './setup.js';

/** Replicas share the database (SQLite file, or MariaDB where HUB_TEST_MYSQL_URL is set) and the bucket, nothing on disk. */
const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

const TARBALL = '/proxy/npm/hubdemo/-/hubdemo-1.0.0.tgz';

for (const store of tiers) {
  t.test(`${store.name}: a miss is uploaded, and a replica with an empty disk serves it as a hit (#12)`, async (t) => {
    const top = t.testdir();
    const s3 = await startS3(t, path.join(top, 's3'));
    const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
    t.teardown(() => upstream.close());
    const where = hubOnDatabase(await store.database(t, top));
    const start = async (name: string) => {
      const hub = await startTestHub({
        dir: path.join(top, name),
        plugins: [npm, storageS3],
        registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
        ...where,
        config: {
          ...where.config,
          auth: { anonymous: ['source:read'] },
          storage: s3Storage(s3, path.join(top, name, 'spool'), 'hub/'),
        },
      });
      t.teardown(() => hub.close());
      return hub;
    };
    const a = await start('a');

    const first = await rawRequest(`${a.url}${TARBALL}`);
    t.equal(first.status, 200);
    t.equal(first.headers.get('x-hub-cache'), 'miss');
    await a.hub.artifacts.idle();
    const sha = sha256(first.body);
    t.ok(
      (await s3.keys()).includes(blobKey(sha, 'hub/')),
      'the tarball is in the bucket under its content address and the prefix',
    );
    t.same(spoolFiles(path.join(top, 'a', 'spool')), [], 'the spool is emptied once the upload is done');
    t.notOk(fs.existsSync(path.join(top, 'a', 'spool', 'sha256')), 'no blob is kept on the local disk');

    // Metadata documents live in the bucket too.
    const meta = (await a.hub.db('metadata').where({ registry: 'npm' }).select('blob_sha256')) as Array<{
      blob_sha256: string;
    }>;
    t.ok(meta.length > 0, 'the packument was stored');
    for (const m of meta)
      t.ok((await s3.keys()).includes(blobKey(m.blob_sha256, 'hub/')), 'the packument is in the bucket');

    const b = await start('b');
    const fetched = upstream.count('/hubdemo/-/');
    const sentBefore = s3.sent();
    const ranged = await rawRequest(`${b.url}${TARBALL}`, { headers: { range: 'bytes=10-19' } });
    t.equal(ranged.status, 206, 'a Range on the replica is answered from S3');
    t.same(ranged.body, first.body.subarray(10, 20));
    t.ok(s3.sent() > sentBefore, 'the range was read from the bucket');
    const hit = await rawRequest(`${b.url}${TARBALL}`);
    t.equal(hit.status, 200);
    t.equal(hit.headers.get('x-hub-cache'), 'hit');
    t.same(hit.body, first.body, 'the same bytes');
    t.equal(upstream.count('/hubdemo/-/'), fetched, 'the replica never asked the upstream for the tarball');

    const doc = await rawRequest(`${b.url}/proxy/npm/hubdemo`, { headers: { accept: 'application/json' } });
    t.equal(doc.status, 200, 'the replica serves the packument');

    // The hot set answers small hot files without a round trip: even with the bucket gone.
    s3.down();
    const hot = await rawRequest(`${b.url}${TARBALL}`);
    t.equal(hot.status, 200);
    t.same(hot.body, first.body, 'served from memory while S3 is unreachable');
  });
}
