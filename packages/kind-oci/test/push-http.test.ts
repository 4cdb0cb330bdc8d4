/**
 * The push half of the distribution API over raw HTTP against a local registry: chunked uploads resumed after
 * asking their state (on SQLite and, where HUB_TEST_MYSQL_URL is set, MariaDB), the cross-repository mount,
 * manifests naming missing blobs, tags (moved, deleted, immutable), referrers, and uploads owned by their pusher.
 */
import { createHash } from 'node:crypto';
import t from 'tap';
import { TEST_MYSQL_URL } from '@hub/testkit';
import { buildImage, digestOf, OCI_MANIFEST } from './image.js';
import { call, hostedHub, pushBlob, pushImage, pushManifest } from './hosted-setup.js';

for (const db of ['sqlite', 'mysql'] as const) {
  t.test(
    `a chunked upload resumed after asking its state (${db})`,
    { skip: db === 'mysql' && !TEST_MYSQL_URL ? 'HUB_TEST_MYSQL_URL is not set' : false },
    async (t) => {
      const hub = await hostedHub(t, { mysql: db === 'mysql' });
      const blob = Buffer.from('0123456789'.repeat(1000));
      const digest = digestOf(blob);
      const started = await call(hub, 'POST', '/v2/box/team/app/blobs/uploads/', hub.publisher);
      t.equal(started.status, 202);
      const location = started.headers.get('location')!;
      t.match(location, /^\/v2\/box\/team\/app\/blobs\/uploads\/[0-9a-f-]{36}$/);
      t.equal(started.headers.get('docker-upload-uuid'), location.split('/').pop());

      const first = await call(hub, 'PATCH', location, hub.publisher, blob.subarray(0, 4000), {
        'content-range': '0-3999',
        'content-type': 'application/octet-stream',
      });
      t.equal(first.status, 202);
      t.equal(first.headers.get('range'), '0-3999');

      // The client lost track: an out-of-order part is refused with 416, and the state says where to resume.
      const skipped = await call(hub, 'PATCH', location, hub.publisher, blob.subarray(5000, 6000), {
        'content-range': '5000-5999',
      });
      t.equal(skipped.status, 416);
      t.equal(skipped.json().errors[0].code, 'BLOB_UPLOAD_INVALID');
      const state = await call(hub, 'GET', location, hub.publisher);
      t.equal(state.status, 204);
      t.equal(state.headers.get('range'), '0-3999', 'the upload holds what the first part sent');

      // Another publisher cannot see, add to or finish it.
      t.equal((await call(hub, 'GET', location, hub.other)).status, 404);
      const theirs = await call(hub, 'PATCH', location, hub.other, Buffer.from('x'), { 'content-range': '4000-4000' });
      t.equal(theirs.status, 404);
      t.equal(theirs.json().errors[0].code, 'BLOB_UPLOAD_UNKNOWN');
      t.equal(
        (await call(hub, 'PATCH', location, hub.reader, Buffer.from('x'))).status,
        403,
        'a reader may not push at all',
      );

      // Not served before it is complete.
      t.equal((await call(hub, 'GET', `/v2/box/team/app/blobs/${digest}`, hub.publisher)).status, 404);
      t.equal(
        (await call(hub, 'PATCH', location, hub.publisher, blob.subarray(4000, 9000), { 'content-range': '4000-8999' }))
          .status,
        202,
      );
      // A wrong digest stores nothing, and the upload stays to be finished right.
      const wrong = await call(
        hub,
        'PUT',
        `${location}?digest=${digestOf(Buffer.from('other'))}`,
        hub.publisher,
        blob.subarray(9000),
      );
      t.equal(wrong.status, 400);
      t.equal(wrong.json().errors[0].code, 'DIGEST_INVALID');
      t.equal(
        (await call(hub, 'GET', `/v2/box/team/app/blobs/${digestOf(Buffer.from('other'))}`, hub.publisher)).status,
        404,
      );
      const done = await call(hub, 'PUT', `${location}?digest=${digest}`, hub.publisher, blob.subarray(9000));
      t.equal(done.status, 201, done.body.toString());
      t.equal(done.headers.get('docker-content-digest'), digest);
      t.equal(done.headers.get('location'), `/v2/box/team/app/blobs/${digest}`);
      const pulled = await call(hub, 'GET', `/v2/box/team/app/blobs/${digest}`, hub.reader);
      t.equal(pulled.status, 200);
      t.equal(createHash('sha256').update(pulled.body).digest('hex'), digest.slice(7), 'the blob, byte for byte');
      t.equal((await call(hub, 'GET', location, hub.publisher)).status, 404, 'the finished upload is gone');
      t.same(await hub.hub.db('local_upload_parts').select('upload_id'), [], 'its parts too');
    },
  );
}

t.test('POST then PUT, cancel, the cross-repository mount', async (t) => {
  const hub = await hostedHub(t);
  const blob = Buffer.from('layer bytes');
  const digest = digestOf(blob);
  const started = await call(hub, 'POST', '/v2/box/a/blobs/uploads/', hub.publisher);
  const put = await call(hub, 'PUT', `${started.headers.get('location')}?digest=${digest}`, hub.publisher, blob, {
    'content-type': 'application/octet-stream',
  });
  t.equal(put.status, 201);

  // Two uploads of one blob finished at once (two images sharing a layer, pushed in parallel): both succeed.
  const twin = Buffer.from('a layer two pushes share');
  const sessions = await Promise.all([1, 2].map(() => call(hub, 'POST', '/v2/box/a/blobs/uploads/', hub.publisher)));
  for (const s of sessions) await call(hub, 'PATCH', s.headers.get('location')!, hub.publisher, twin);
  const finished = await Promise.all(
    sessions.map((s) =>
      call(hub, 'PUT', `${s.headers.get('location')}?digest=${digestOf(twin)}`, hub.publisher, undefined, {
        'content-length': '0',
      }),
    ),
  );
  t.same(
    finished.map((r) => r.status),
    [201, 201],
  );
  t.same(await hub.hub.db('local_uploads').select('id'), [], 'neither session is left');

  const cancelled = await call(hub, 'POST', '/v2/box/a/blobs/uploads/', hub.publisher);
  t.equal((await call(hub, 'DELETE', cancelled.headers.get('location')!, hub.publisher)).status, 204);
  t.equal((await call(hub, 'GET', cancelled.headers.get('location')!, hub.publisher)).status, 404);

  const mounted = await call(hub, 'POST', `/v2/box/b/blobs/uploads/?mount=${digest}&from=a`, hub.publisher);
  t.equal(mounted.status, 201, 'mounted from a repository that holds it');
  t.equal(mounted.headers.get('location'), `/v2/box/b/blobs/${digest}`);
  t.equal((await call(hub, 'HEAD', `/v2/box/b/blobs/${digest}`, hub.reader)).status, 200);
  const missing = digestOf(Buffer.from('nowhere'));
  const fallback = await call(hub, 'POST', `/v2/box/c/blobs/uploads/?mount=${missing}&from=a`, hub.publisher);
  t.equal(fallback.status, 202, 'a blob the source lacks: an upload starts instead');
  t.ok(fallback.headers.get('location'));
  t.equal(
    (await call(hub, 'DELETE', `/v2/box/a/blobs/${digest}`, hub.publisher)).status,
    405,
    'blobs go by garbage collection only',
  );
});

t.test('manifests: missing blobs refused, tags moved and deleted, the audit rows', async (t) => {
  const hub = await hostedHub(t);
  const image = buildImage('one');
  const amd64 = image.manifests.get('linux/amd64')!;
  const early = await pushManifest(hub, 'app', 'v1', hub.publisher, amd64);
  t.equal(early.status, 400);
  t.equal(early.json().errors[0].code, 'MANIFEST_BLOB_UNKNOWN');
  for (const b of image.blobs.values()) await pushBlob(hub, 'app', hub.publisher, b.body);
  const orphanIndex = await pushManifest(hub, 'app', 'v1', hub.publisher, image.index);
  t.equal(orphanIndex.json().errors[0].code, 'MANIFEST_UNKNOWN', 'an index before its platform manifests');
  const wrongDigest = await pushManifest(hub, 'app', image.index.digest, hub.publisher, amd64);
  t.equal(wrongDigest.json().errors[0].code, 'DIGEST_INVALID');
  const huge = await call(
    hub,
    'PUT',
    '/v2/box/app/manifests/huge',
    hub.publisher,
    Buffer.alloc(4 * 1024 * 1024 + 1, 0x20),
    { 'content-type': OCI_MANIFEST },
  );
  t.equal(huge.status, 413, 'a manifest past 4 MiB is not read whole');
  t.equal(huge.json().errors[0].code, 'SIZE_INVALID');
  const notJson = await call(hub, 'PUT', '/v2/box/app/manifests/bad', hub.publisher, Buffer.from('{"schemaVersion":'), {
    'content-type': OCI_MANIFEST,
  });
  t.equal(notJson.json().errors[0].code, 'MANIFEST_INVALID');

  await pushImage(hub, 'app', 'v1', hub.publisher, image);
  const got = await call(hub, 'GET', '/v2/box/app/manifests/v1', hub.reader, undefined, {
    accept: image.index.mediaType,
  });
  t.equal(got.status, 200);
  t.equal(got.body.toString(), image.index.body.toString());
  t.equal(got.headers.get('docker-content-digest'), image.index.digest);
  t.equal(got.headers.get('content-type'), image.index.mediaType);

  const two = buildImage('two');
  await pushImage(hub, 'app', 'v1', hub.publisher, two);
  t.equal(
    (await call(hub, 'GET', '/v2/box/app/manifests/v1', hub.reader)).headers.get('docker-content-digest'),
    two.index.digest,
    'the tag moved',
  );
  await pushImage(hub, 'app', 'v2', hub.publisher, two);
  const list = await call(hub, 'GET', '/v2/box/app/tags/list?n=1', hub.reader);
  t.same(list.json(), { name: 'app', tags: ['v1'] });
  t.equal(list.headers.get('link'), '</v2/box/app/tags/list?n=1&last=v1>; rel="next"');
  t.same((await call(hub, 'GET', '/v2/box/app/tags/list?n=1&last=v1', hub.reader)).json(), {
    name: 'app',
    tags: ['v2'],
  });

  t.equal((await call(hub, 'DELETE', '/v2/box/app/manifests/v2', hub.publisher)).status, 202);
  t.equal((await call(hub, 'GET', '/v2/box/app/manifests/v2', hub.reader)).status, 404, 'a deleted tag');
  t.equal(
    (await call(hub, 'GET', `/v2/box/app/manifests/${two.index.digest}`, hub.reader)).status,
    200,
    'its manifest stays',
  );
  t.equal((await call(hub, 'DELETE', `/v2/box/app/manifests/${image.index.digest}`, hub.publisher)).status, 202);
  t.equal(
    (await call(hub, 'GET', `/v2/box/app/manifests/${image.index.digest}`, hub.reader)).status,
    404,
    'a deleted manifest',
  );
  t.equal(
    (await pushManifest(hub, 'app', image.index.digest, hub.publisher, image.index)).status,
    201,
    'a deleted digest may be pushed again',
  );

  await hub.hub.audit.flush();
  const rows = await hub.hub
    .db('access_events')
    .whereIn('action', ['tag', 'untag', 'unpublish'])
    .orderBy('id')
    .select('action', 'user_id', 'package', 'version', 'detail');
  t.match(rows, [
    {
      action: 'tag',
      user_id: 'pub',
      package: 'app',
      version: 'v1',
      detail: `moved from ${image.index.digest} to ${two.index.digest}`,
    },
    { action: 'untag', user_id: 'pub', version: 'v2', detail: `was ${two.index.digest}` },
    { action: 'unpublish', version: image.index.digest },
  ]);
  const uploads = await hub.hub
    .db('access_events')
    .where({ action: 'upload', user_id: 'pub', package: 'app' })
    .select('version');
  t.ok(
    [...image.blobs.keys()].every((d) => uploads.some((u) => u.version === d)),
    'each pushed blob is an upload row',
  );
});

t.test('immutable tags', async (t) => {
  const hub = await hostedHub(t, { registry: { immutable_tags: true } });
  await pushImage(hub, 'app', 'v1', hub.publisher, buildImage('one'));
  const two = buildImage('two');
  for (const b of two.blobs.values()) await pushBlob(hub, 'app', hub.publisher, b.body);
  for (const m of two.manifests.values()) await pushManifest(hub, 'app', m.digest, hub.publisher, m);
  const moved = await pushManifest(hub, 'app', 'v1', hub.publisher, two.index);
  t.equal(moved.status, 409);
  t.equal(moved.json().errors[0].code, 'TAG_INVALID');
  t.match(moved.json().errors[0].message, /immutable/);
  t.equal((await call(hub, 'DELETE', '/v2/box/app/manifests/v1', hub.publisher)).status, 409);
  t.equal((await pushManifest(hub, 'app', 'v2', hub.publisher, two.index)).status, 201, 'a new tag is fine');
});

t.test('referrers: an SBOM attached to an image, found by artifactType', async (t) => {
  const hub = await hostedHub(t);
  const image = buildImage('one');
  await pushImage(hub, 'app', 'v1', hub.publisher, image);
  const empty = Buffer.from('{}');
  await pushBlob(hub, 'app', hub.publisher, empty);
  const sbom = Buffer.from(JSON.stringify({ spdxVersion: 'SPDX-2.3', name: 'app' }));
  await pushBlob(hub, 'app', hub.publisher, sbom);
  const artifact = (type: string, layer: Buffer) => {
    const body = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: OCI_MANIFEST,
        artifactType: type,
        config: { mediaType: 'application/vnd.oci.empty.v1+json', digest: digestOf(empty), size: 2 },
        layers: [{ mediaType: type, digest: digestOf(layer), size: layer.length }],
        subject: { mediaType: image.index.mediaType, digest: image.index.digest, size: image.index.body.length },
        annotations: { 'org.opencontainers.image.created': '2026-01-01T00:00:00Z' },
      }),
    );
    return { body, digest: digestOf(body), mediaType: OCI_MANIFEST };
  };
  const spdx = artifact('application/spdx+json', sbom);
  const sig = artifact('application/vnd.example.signature', empty);
  const put = await pushManifest(hub, 'app', spdx.digest, hub.publisher, spdx);
  t.equal(put.status, 201);
  t.equal(put.headers.get('oci-subject'), image.index.digest);
  await pushManifest(hub, 'app', sig.digest, hub.publisher, sig);

  const all = await call(hub, 'GET', `/v2/box/app/referrers/${image.index.digest}`, hub.reader);
  t.equal(all.headers.get('content-type'), 'application/vnd.oci.image.index.v1+json');
  t.equal(all.json().manifests.length, 2);
  const only = await call(
    hub,
    'GET',
    `/v2/box/app/referrers/${image.index.digest}?artifactType=application/spdx%2Bjson`,
    hub.reader,
  );
  t.equal(only.headers.get('oci-filters-applied'), 'artifactType');
  t.same(only.json().manifests, [
    {
      mediaType: OCI_MANIFEST,
      digest: spdx.digest,
      size: spdx.body.length,
      artifactType: 'application/spdx+json',
      annotations: { 'org.opencontainers.image.created': '2026-01-01T00:00:00Z' },
    },
  ]);
  const fetched = await call(hub, 'GET', `/v2/box/app/blobs/${only.json().manifests[0].digest}`, hub.reader);
  t.equal(fetched.status, 404, 'a referrer is a manifest, not a blob');
  const sbomManifest = await call(hub, 'GET', `/v2/box/app/manifests/${spdx.digest}`, hub.reader);
  const layer = JSON.parse(sbomManifest.body.toString()).layers[0].digest as string;
  t.same(
    JSON.parse((await call(hub, 'GET', `/v2/box/app/blobs/${layer}`, hub.reader)).body.toString()),
    { spdxVersion: 'SPDX-2.3', name: 'app' },
    'the SBOM itself',
  );
});

t.test('a blocked pushed image is refused with the reason', async (t) => {
  const hub = await hostedHub(t);
  const image = buildImage('one');
  await pushImage(hub, 'app', 'v1', hub.publisher, image);
  await hub.hub.services.blocks.add({
    registry: 'box',
    package_name: 'app',
    version: image.index.digest,
    reason: 'CVE-2099-0002',
    by: 'admin',
  });
  const byTag = await call(hub, 'GET', '/v2/box/app/manifests/v1', hub.reader);
  t.equal(byTag.status, 403);
  t.match(byTag.json().errors[0], { code: 'DENIED', message: /CVE-2099-0002/ });
  const amd64 = image.manifests.get('linux/amd64')!;
  t.equal(
    (await call(hub, 'GET', `/v2/box/app/manifests/${amd64.digest}`, hub.reader)).status,
    403,
    'its platform images with it',
  );
});

t.test('uploads past max_publish_bytes and the quota', async (t) => {
  const hub = await hostedHub(t, { registry: { max_publish_bytes: 1000, quota_bytes: 1500 } });
  const big = Buffer.alloc(1200, 1);
  t.equal((await pushBlob(hub, 'app', hub.publisher, big)).status, 413);
  const s = await call(hub, 'POST', '/v2/box/app/blobs/uploads/', hub.publisher);
  const loc = s.headers.get('location')!;
  t.equal((await call(hub, 'PATCH', loc, hub.publisher, big.subarray(0, 800))).status, 202);
  const over = await call(hub, 'PATCH', loc, hub.publisher, big.subarray(800, 1100));
  t.equal(over.status, 413, 'the parts together are capped too');
  t.equal(over.json().errors[0].code, 'SIZE_INVALID');
  t.equal((await pushBlob(hub, 'app', hub.publisher, Buffer.alloc(900, 2))).status, 201);
  t.equal((await pushBlob(hub, 'app', hub.publisher, Buffer.alloc(900, 3))).status, 507, 'past the quota');
});
