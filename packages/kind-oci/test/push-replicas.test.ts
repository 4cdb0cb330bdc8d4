/**
 * An upload whose requests land on two replicas (one MariaDB, one blob store), an abandoned upload swept with
 * its parts, and Docker's schema 2 manifests and lists pushed and pulled back byte for byte.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import admin from '@hub/admin';
import publishing from '@hub/publishing';
import { createTestDatabase, startTestHub, TEST_MYSQL_URL } from '@hub/testkit';
import oci from '../src/index.js';
import { buildImage, digestOf } from './image.js';
import { call, hostedHub, pushImage } from './hosted-setup.js';

t.test(
  'an upload started on one replica, continued and finished on the other',
  { skip: TEST_MYSQL_URL ? false : 'HUB_TEST_MYSQL_URL is not set' },
  async (t) => {
    const db = await createTestDatabase(TEST_MYSQL_URL!);
    t.teardown(() => db.drop());
    const blobs = path.join(t.testdirName, 'shared-blobs');
    const replica = async (n: number) => {
      const hub = await startTestHub({
        dir: path.join(t.testdirName, `replica-${n}`),
        storagePath: blobs,
        mysqlUrl: db.url,
        plugins: [oci, publishing, admin],
        registries: [{ name: 'box', type: 'oci', mode: 'local' }],
      });
      t.teardown(() => hub.close());
      return hub;
    };
    fs.mkdirSync(t.testdirName, { recursive: true });
    const [a, b] = [await replica(1), await replica(2)];
    const token = await a.token('pub', { roles: ['publisher'] });
    const blob = Buffer.from('x'.repeat(3000));
    const started = await call(a, 'POST', '/v2/box/app/blobs/uploads/', token);
    const location = started.headers.get('location')!;
    t.equal(
      (await call(a, 'PATCH', location, token, blob.subarray(0, 1000), { 'content-range': '0-999' })).status,
      202,
    );
    t.equal(
      (await call(b, 'PATCH', location, token, blob.subarray(1000, 2000), { 'content-range': '1000-1999' })).status,
      202,
      'the second part lands on the other replica',
    );
    t.equal((await call(a, 'GET', location, token)).headers.get('range'), '0-1999', 'and the first replica sees it');
    const done = await call(b, 'PUT', `${location}?digest=${digestOf(blob)}`, token, blob.subarray(2000));
    t.equal(done.status, 201);
    const back = await call(a, 'GET', `/v2/box/app/blobs/${digestOf(blob)}`, token);
    t.equal(digestOf(back.body), digestOf(blob), 'either replica serves the whole blob');
  },
);

t.test('an abandoned upload expires and its parts are removed', async (t) => {
  const hub = await hostedHub(t, { registry: { deploy_expiry_secs: 3600 } });
  const part = Buffer.from('a part never finished');
  const started = await call(hub, 'POST', '/v2/box/app/blobs/uploads/', hub.publisher);
  const location = started.headers.get('location')!;
  await call(hub, 'PATCH', location, hub.publisher, part);
  const partFile = path.join(t.testdirName, 'blobs', digestOf(part).slice(7, 9), digestOf(part).slice(7));
  const stored = () =>
    fs
      .readdirSync(path.join(t.testdirName, 'blobs'), { recursive: true })
      .some((f) => String(f).endsWith(digestOf(part).slice(7)));
  t.ok(stored(), `the part is in the blob store (${path.relative(t.testdirName, partFile)})`);
  // An hour passes without a request for it.
  await hub.hub.db('local_uploads').update({ touched_at: Date.now() - 2 * 3_600_000 });
  t.equal((await call(hub, 'GET', location, hub.publisher)).status, 404, 'an expired upload is gone for its owner too');
  await call(hub, 'POST', '/v2/box/other/blobs/uploads/', hub.publisher);
  t.same(await hub.hub.db('local_upload_parts').select('upload_id'), [], 'swept when the next upload starts');
  t.notOk(stored(), 'its part left the blob store');
});

t.test("Docker's schema 2 manifest list and manifests, pushed and pulled back", async (t) => {
  const hub = await hostedHub(t);
  const image = buildImage('docker', { docker: true });
  await pushImage(hub, 'team/docker', 'latest', hub.publisher, image);
  const list = await call(hub, 'GET', '/v2/box/team/docker/manifests/latest', hub.reader, undefined, {
    accept: image.index.mediaType,
  });
  t.equal(list.headers.get('content-type'), 'application/vnd.docker.distribution.manifest.list.v2+json');
  t.equal(list.body.toString(), image.index.body.toString());
  for (const m of image.manifests.values()) {
    const r = await call(hub, 'GET', `/v2/box/team/docker/manifests/${m.digest}`, hub.reader);
    t.equal(r.headers.get('content-type'), 'application/vnd.docker.distribution.manifest.v2+json');
    t.equal(digestOf(r.body), m.digest);
  }
});
