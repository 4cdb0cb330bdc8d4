import t from 'tap';
import { ANON, get, setup } from './setup.js';
import { digestOf, DOCKER_LIST, DOCKER_MANIFEST, OCI_INDEX, OCI_MANIFEST } from './image.js';

const basic = (user: string, pass: string) => ({
  authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`,
});

t.test(
  '/v2/: the Basic challenge container clients answer, 200 {} with a token or where anonymous reads are allowed',
  async (t) => {
    const s = await setup(t);
    for (const [what, headers] of [
      ['no credentials', {}],
      ['a wrong token', basic('x', 'hub_wrong')],
    ] as const) {
      const res = await get(`${s.url}/v2/`, headers);
      t.equal(res.status, 401, what);
      t.equal(
        res.headers.get('www-authenticate'),
        'Basic realm="hub"',
        `${what}: Basic only, so the client sends the token as a password`,
      );
      t.equal(res.headers.get('docker-distribution-api-version'), 'registry/2.0');
      t.equal(res.json().errors[0].code, 'UNAUTHORIZED', `${what}: the OCI error body`);
      t.equal(res.json().error.code, 'unauthenticated', `${what}: and hub's`);
    }
    const token = await s.token('ci');
    for (const p of ['/v2/', '/v2']) {
      const ok = await get(`${s.url}${p}`, basic('ci', token));
      t.equal(ok.status, 200, `${p} with the token`);
      t.same(ok.json(), {});
      t.equal(ok.headers.get('docker-distribution-api-version'), 'registry/2.0');
    }
    const manifest = await get(`${s.base}/hub/demo/manifests/1.0`);
    t.equal(manifest.status, 401, 'a manifest without credentials: the same challenge');
    t.equal(manifest.headers.get('www-authenticate'), 'Basic realm="hub"');
    t.equal((await get(`${s.base}/hub/demo/manifests/1.0`, basic('ci', token))).status, 200);

    const anon = await setup(t, { config: ANON });
    const open = await get(`${anon.url}/v2/`);
    t.equal(open.status, 200, 'anonymous reads allowed: 200 without credentials');
    t.same(open.json(), {});
  },
);

t.test(
  'manifests by tag and digest: the media type as Content-Type, Docker-Content-Digest, HEAD; Docker and OCI types',
  async (t) => {
    const s = await setup(t, { config: ANON });
    const { v10, docker } = s.images;
    const index = await get(`${s.base}/hub/demo/manifests/1.0`, { accept: `${OCI_INDEX}, ${OCI_MANIFEST}` });
    t.equal(index.status, 200);
    t.same(index.body, v10.index.body, 'the index, byte for byte');
    t.equal(index.headers.get('content-type'), OCI_INDEX);
    t.equal(index.headers.get('docker-content-digest'), v10.index.digest);
    t.equal(index.headers.get('cache-control'), 'no-cache', 'a tag moves: not cached by clients for long');
    const head = await get(`${s.base}/hub/demo/manifests/1.0`, { accept: OCI_INDEX }, 'HEAD');
    t.equal(head.status, 200);
    t.equal(head.headers.get('docker-content-digest'), v10.index.digest, 'HEAD by tag: the digest');
    t.equal(head.headers.get('content-length'), String(v10.index.body.length));

    const arm = v10.manifests.get('linux/arm64')!;
    const byDigest = await get(`${s.base}/hub/demo/manifests/${arm.digest}`, { accept: OCI_MANIFEST });
    t.same(byDigest.body, arm.body);
    t.equal(byDigest.headers.get('content-type'), OCI_MANIFEST);
    t.equal(byDigest.headers.get('docker-content-digest'), arm.digest);
    t.match(byDigest.headers.get('cache-control'), /immutable/, 'a digest never changes');
    const headDigest = await get(`${s.base}/hub/demo/manifests/${arm.digest}`, {}, 'HEAD');
    t.equal(headDigest.status, 200);
    t.equal(headDigest.headers.get('content-type'), OCI_MANIFEST, 'HEAD by digest, cached: the media type');

    const list = await get(`${s.base}/hub/docker/manifests/latest`, { accept: `${DOCKER_LIST}, ${DOCKER_MANIFEST}` });
    t.equal(list.headers.get('content-type'), DOCKER_LIST, 'a Docker manifest list');
    const child = docker.manifests.get('linux/amd64')!;
    const uncachedHead = await get(`${s.base}/hub/docker/manifests/${child.digest}`, {}, 'HEAD');
    t.equal(
      uncachedHead.headers.get('content-type'),
      DOCKER_MANIFEST,
      'HEAD by digest, uncached: the upstream says the media type',
    );
    t.equal(
      (await get(`${s.base}/hub/docker/manifests/${child.digest}`)).headers.get('content-type'),
      DOCKER_MANIFEST,
      'a Docker image manifest',
    );

    const accepts = s.upstream.requests
      .filter((r) => r.url === '/v2/hub/demo/manifests/1.0')
      .map((r) => r.headers.accept);
    t.same(
      accepts,
      [`${OCI_INDEX}, ${OCI_MANIFEST}`, OCI_INDEX],
      "the client's manifest types go upstream, each set its own cached representation",
    );
    const all = await get(`${s.base}/hub/demo/manifests/1.1`);
    t.equal(all.status, 200);
    t.match(
      s.upstream.requests.find((r) => r.url === '/v2/hub/demo/manifests/1.1')?.headers.accept,
      new RegExp(
        [OCI_INDEX, OCI_MANIFEST, DOCKER_LIST, DOCKER_MANIFEST].map((x) => x.replace(/[.+]/g, '\\$&')).join('|'),
      ),
      'no Accept: all four',
    );
  },
);

t.test('blobs by digest, verified: bytes that do not match their digest are refused and not cached', async (t) => {
  const s = await setup(t, { config: ANON });
  const [layer] = [...s.images.v10.blobs.values()];
  const res = await get(`${s.base}/hub/demo/blobs/${layer!.digest}`);
  t.equal(res.status, 200);
  t.same(res.body, layer!.body);
  t.equal(res.headers.get('docker-content-digest'), layer!.digest);
  await s.hub.artifacts.idle();
  const before = s.upstream.count();
  t.same((await get(`${s.base}/hub/demo/blobs/${layer!.digest}`)).body, layer!.body, 'again, from the cache');
  t.equal(s.upstream.count(), before, 'no upstream request');

  const forged = Buffer.from('not the layer');
  const forgedDigest = digestOf(Buffer.from('the real layer'));
  s.registry.repos
    .get('hub/demo')!
    .get('1.0')!
    .blobs.set(forgedDigest, { digest: forgedDigest, body: forged, mediaType: 'application/octet-stream' });
  const bad = await get(`${s.base}/hub/demo/blobs/${forgedDigest}`).catch(() => null);
  t.ok(
    bad === null || bad.status === 502,
    `the forged bytes are refused (${bad === null ? 'connection cut' : bad.status})`,
  );
  await s.hub.artifacts.idle();
  const retry = await get(`${s.base}/hub/demo/blobs/${forgedDigest}`, {}, 'HEAD');
  t.equal(retry.headers.get('x-hub-cache'), 'miss', 'nothing was cached for the forged digest');

  t.equal((await get(`${s.base}/hub/demo/blobs/sha256:zz`)).status, 400, 'a malformed digest: 400');
  t.equal((await get(`${s.base}/hub/demo/blobs/sha256:zz`)).json().errors[0].code, 'DIGEST_INVALID');
  t.equal(
    (await get(`${s.base}/hub/Demo/manifests/1.0`)).json().errors[0].code,
    'NAME_INVALID',
    'upper case is no repository name',
  );
  const unknown = await get(`${s.base}/hub/demo/manifests/9.9`);
  t.equal(unknown.status, 404);
  t.equal(unknown.json().errors[0].code, 'MANIFEST_UNKNOWN');
  t.equal(unknown.json().error.code, 'not_found', 'both formats in one body');
  t.notMatch(unknown.json().error.message, /tags\/|accept=/, 'no internal cache key in the message (#26)');
  t.match(unknown.json().error.message, /is not in the upstream of registry/);
});

t.test(
  'blocks: by repository (blobs too), by tag, and by digest when pulled by a tag; pushes are refused',
  async (t) => {
    const s = await setup(t, { config: ANON });
    const { v10, v11 } = s.images;
    await s.block('hub/demo', v11.index.digest);
    const byTag = await get(`${s.base}/hub/demo/manifests/1.1`);
    t.equal(byTag.status, 403, 'the tag resolves to a blocked digest: refused at the manifest');
    t.match(byTag.json().errors[0].message, new RegExp(`hub/demo ${v11.index.digest} is blocked by admin: test`));
    t.equal(byTag.json().errors[0].code, 'DENIED');
    t.match(byTag.headers.get('x-request-id'), /./);
    t.equal((await get(`${s.base}/hub/demo/manifests/1.0`)).status, 200, 'the other tag is served');

    await s.block('hub/demo');
    const before = s.upstream.count();
    for (const p of [
      'manifests/1.0',
      `manifests/${v10.index.digest}`,
      `blobs/${[...v10.blobs.keys()][0]}`,
      'tags/list',
    ])
      t.equal((await get(`${s.base}/hub/demo/${p}`)).status, 403, `blocked repository: ${p}`);
    t.equal(s.upstream.count(), before, 'refused without an upstream request');
    t.equal((await get(`${s.base}/hub/docker/manifests/latest`)).status, 200, 'other repositories unaffected');

    const put = await get(`${s.base}/hub/docker/manifests/latest`, { 'content-type': OCI_MANIFEST }, 'PUT');
    t.equal(put.status, 405, 'a push: 405');
    t.equal(put.json().errors[0].code, 'UNSUPPORTED');
  },
);

t.test(
  'root mount: only registries of the kind are served below /v2/; /proxy/<name>/ serves the same routes',
  async (t) => {
    const s = await setup(t, { config: ANON });
    t.equal((await get(`${s.url}/v2/nope/hub/demo/manifests/1.0`)).status, 404, 'no such registry');
    const viaProxy = await get(`${s.url}/proxy/dock/hub/demo/manifests/1.0`);
    t.equal(viaProxy.status, 200);
    t.same(viaProxy.body, s.images.v10.index.body);
    t.equal(
      (await get(`${s.url}/v3/dock/hub/demo/manifests/1.0`)).status,
      404,
      'another first segment is no registry route',
    );
  },
);

t.test('tags/list: unlisted tags left out; n and last page through the rest', async (t) => {
  const s = await setup(t, { config: ANON });
  await s.hub.services.unlisting.add({ registry: 'dock', package_name: 'hub/demo', version: '1.0' }, 'admin');
  t.same((await get(`${s.base}/hub/demo/tags/list`)).json(), { name: 'hub/demo', tags: ['1.1'] });
  const s2 = await setup(t, {
    config: ANON,
    fixture: async (r) =>
      void ['2.0', '3.0'].forEach((tag) => r.repos.get('hub/demo')!.set(tag, r.repos.get('hub/demo')!.get('1.1')!)),
  });
  t.same((await get(`${s2.base}/hub/demo/tags/list?n=2`)).json().tags, ['1.0', '1.1']);
  t.same((await get(`${s2.base}/hub/demo/tags/list?n=2&last=1.1`)).json().tags, ['2.0', '3.0']);
});

t.test("an endless manifest is cut at the distribution spec's 4 MiB and not cached", async (t) => {
  const huge = Buffer.concat([
    Buffer.from('{"schemaVersion":2,"x":"'),
    Buffer.alloc(5 * 1024 * 1024, 0x61),
    Buffer.from('"}'),
  ]);
  const s = await setup(t, {
    config: ANON,
    handler: (req, res) => {
      if (req.url !== '/v2/hub/demo/manifests/huge') return false;
      res.writeHead(200, { 'content-type': OCI_MANIFEST }).end(huge);
      return true;
    },
  });
  const res = await get(`${s.base}/hub/demo/manifests/huge`);
  t.equal(res.status, 502);
  t.equal(res.json().error.code, 'upstream_error');
});
