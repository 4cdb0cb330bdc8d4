import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import generic from '@hub/kind-path/generic';
import { rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import storageS3 from '../src/index.js';
import { startS3, s3Storage } from './s3-server.js';
import { blobKey, sha256, spoolFiles } from './setup.js';

const MiB = 1024 * 1024;

t.test(
  'an upload cut mid-way leaves no row and nothing served; the next request fetches and uploads again (#12)',
  async (t) => {
    const top = t.testdir({ up: {} });
    // Larger than one part: the multipart path, cut inside its first part.
    const big = crypto.randomBytes(12 * MiB);
    fs.mkdirSync(path.join(top, 'up', 'pool'));
    fs.writeFileSync(path.join(top, 'up', 'pool', 'big.bin'), big);
    const sha = sha256(big);
    const s3 = await startS3(t, path.join(top, 's3'));
    const upstream = await startFixtureUpstream({ root: path.join(top, 'up') });
    t.teardown(() => upstream.close());
    const spool = path.join(top, 'spool');
    const hub = await startTestHub({
      dir: path.join(top, 'hub'),
      plugins: [generic, storageS3],
      registries: [{ name: 'files', type: 'generic', mode: 'proxy', upstream: upstream.url }],
      config: { auth: { anonymous: ['source:read'] }, storage: s3Storage(s3, spool) },
    });
    t.teardown(() => hub.close());
    const rows = () =>
      hub.hub
        .db('artifacts')
        .where({ registry: 'files' })
        .count<Array<{ n: number }>>({ n: '*' })
        .then((r) => Number(r[0]!.n));

    const sentBefore = s3.sent();
    s3.downAfter(3 * MiB);
    const first = await rawRequest(`${hub.url}/proxy/files/pool/big.bin`);
    // The first client tails the verified spool, so it may get the whole artifact; it never gets a wrong one.
    if (first.status === 200)
      t.equal(sha256(first.body), sha, 'the first client got the verified bytes from the spool');
    await hub.hub.artifacts.idle();
    t.ok(s3.sent() - sentBefore >= 3 * MiB, 'the upload had started when S3 went away');
    t.equal(await rows(), 0, 'no artifact row was committed');
    t.notOk((await s3.keys()).includes(blobKey(sha)), 'no object under the content address');
    t.same(spoolFiles(spool), [], 'the spool file is gone');
    t.equal(upstream.count('/pool/big.bin'), 1);

    s3.up();
    const again = await rawRequest(`${hub.url}/proxy/files/pool/big.bin`);
    t.equal(again.status, 200);
    t.equal(again.headers.get('x-hub-cache'), 'miss', 'nothing half-written was served as a hit');
    t.equal(sha256(again.body), sha);
    t.equal(upstream.count('/pool/big.bin'), 2, 'fetched again');
    await hub.hub.artifacts.idle();
    t.equal(await rows(), 1, 'stored this time');
    t.ok((await s3.keys()).includes(blobKey(sha)), 'uploaded');

    const hit = await rawRequest(`${hub.url}/proxy/files/pool/big.bin`);
    t.equal(hit.headers.get('x-hub-cache'), 'hit');
    t.equal(sha256(hit.body), sha, 'streamed back from S3 whole');
    t.equal(upstream.count('/pool/big.bin'), 2);
  },
);
