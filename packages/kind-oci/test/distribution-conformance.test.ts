/**
 * The OCI distribution specification's conformance scenarios (its `conformance/` suite as of v1.1.1: pull, push,
 * content discovery, content management), ported to node-tap against a local oci registry on loopback. Each
 * subtest is named as the upstream suite names its scenario; the four workflows run in the upstream order on one
 * repository, with the upstream defaults (setup on, manifests deleted before blobs, no automatic cross-mount).
 * The test data is built the way the upstream suite builds it: a config per workflow, one gzipped layer, five
 * manifests, a 42-byte chunked blob, referrer artifacts of two artifact types and an index artifact.
 */
import { createHash, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import { makeTar, TEST_MYSQL_URL } from '@hub/testkit';
import { call, hostedHub, type Answer, type Hosted } from './hosted-setup.js';

const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
const EMPTY_JSON = 'application/vnd.oci.empty.v1+json';
const ERROR_CODES = [
  'BLOB_UNKNOWN',
  'BLOB_UPLOAD_INVALID',
  'BLOB_UPLOAD_UNKNOWN',
  'DIGEST_INVALID',
  'MANIFEST_BLOB_UNKNOWN',
  'MANIFEST_INVALID',
  'MANIFEST_UNKNOWN',
  'MANIFEST_UNVERIFIED',
  'NAME_INVALID',
  'NAME_UNKNOWN',
  'SIZE_INVALID',
  'TAG_INVALID',
  'UNAUTHORIZED',
  'DENIED',
  'UNSUPPORTED',
];
const TAG = 'tagtest0';
const ANNOTATION = 'org.opencontainers.conformance.test';

const digestOf = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;
/** JSON as the upstream suite sends it (Go's MarshalIndent with a tab). */
const json = (v: unknown) => Buffer.from(JSON.stringify(v, null, '\t'));
const desc = (mediaType: string, b: Buffer) => ({ mediaType, size: b.length, digest: digestOf(b) });

/** The data: configs[i] and manifests[i] per workflow (i = 0..4), one layer shared by them all. */
function testData() {
  const layer = gzipSync(makeTar([['conformance.txt', Buffer.from('hub\n')]]));
  const configs = Array.from({ length: 5 }, () =>
    json({
      author: randomBytes(8).toString('hex'),
      architecture: 'amd64',
      os: 'linux',
      rootfs: { type: 'layers', diff_ids: [] },
    }),
  );
  const manifests = configs.map((c) =>
    json({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      config: { ...desc('application/vnd.oci.image.config.v1+json', c), data: c.toString('base64') },
      layers: [desc('application/vnd.oci.image.layer.v1.tar+gzip', layer)],
    }),
  );
  const emptyLayerManifest = json({
    schemaVersion: 2,
    config: desc('application/vnd.oci.image.config.v1+json', configs[1]!),
    layers: [],
  });
  const blobA = randomBytes(42);
  const blobB = randomBytes(42);
  const emptyJson = Buffer.from('{}');
  const refBlobA = Buffer.from('artifact A: a small text blob');
  const refBlobB = Buffer.from('artifact B: another small text blob');
  const typeA = 'application/vnd.example.conformance.a';
  const typeB = 'application/vnd.example.conformance.b';
  const subject = (m: Buffer) => desc(OCI_MANIFEST, m);
  const refs = {
    aConfig: json({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      config: desc(typeA, refBlobA),
      subject: subject(manifests[4]!),
      layers: [desc(EMPTY_JSON, emptyJson)],
      annotations: { [ANNOTATION]: 'test config a' },
    }),
    bConfig: json({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      config: desc(typeB, refBlobB),
      subject: subject(manifests[4]!),
      layers: [desc(EMPTY_JSON, emptyJson)],
      annotations: { [ANNOTATION]: 'test config b' },
    }),
    aLayer: json({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      artifactType: typeA,
      config: desc(EMPTY_JSON, emptyJson),
      subject: subject(manifests[4]!),
      layers: [desc(typeA, refBlobA)],
      annotations: { [ANNOTATION]: 'test layer a' },
    }),
    bLayer: json({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      artifactType: typeB,
      config: desc(EMPTY_JSON, emptyJson),
      subject: subject(manifests[4]!),
      layers: [desc(typeB, refBlobB)],
      annotations: { [ANNOTATION]: 'test layer b' },
    }),
    // Like bLayer, about a subject never pushed.
    cLayer: json({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      artifactType: typeB,
      config: desc(EMPTY_JSON, emptyJson),
      subject: subject(manifests[3]!),
      layers: [desc(typeB, refBlobB)],
    }),
  };
  const refsIndex = json({
    schemaVersion: 2,
    mediaType: OCI_INDEX,
    artifactType: 'application/vnd.example.conformance.index',
    manifests: [desc(OCI_MANIFEST, refs.aConfig), desc(OCI_MANIFEST, refs.aLayer)],
    subject: subject(manifests[4]!),
    annotations: { [ANNOTATION]: 'test index' },
  });
  const chunk1 = blobB.subarray(0, 22);
  const chunk2 = blobB.subarray(22);
  return {
    layer,
    configs,
    manifests,
    emptyLayerManifest,
    blobA,
    blobB,
    chunk1,
    chunk2,
    emptyJson,
    refBlobA,
    refBlobB,
    typeA,
    refs,
    refsIndex,
    dummyDigest: digestOf(Buffer.from('hello world')),
  };
}

const ok2xx = (t: Test, r: Answer, what = '') =>
  t.ok(
    r.status >= 200 && r.status < 300,
    `${what} ${r.status} is 2xx${r.status >= 300 ? `: ${r.body.toString().slice(0, 300)}` : ''}`,
  );
const oneOf = (t: Test, r: Answer, allowed: number[]) =>
  t.ok(
    allowed.includes(r.status) || (allowed.includes(200) && r.status >= 200 && r.status < 300),
    `${r.status} is one of ${allowed.join(', ')}`,
  );
const tagsOf = (r: Answer): string[] => (r.json() as { tags: string[] }).tags;

for (const db of ['sqlite', 'mysql'] as const)
  t.test(
    `OCI distribution-spec conformance (v1.1.1 scenarios, ${db})`,
    { skip: db === 'mysql' && !TEST_MYSQL_URL ? 'HUB_TEST_MYSQL_URL is not set' : false },
    async (t) => {
      const hub = await hostedHub(t, { mysql: db === 'mysql' });
      const d = testData();
      const name = 'conformance/repo';
      const crossmount = `conformance-${randomBytes(6).toString('hex')}`;
      const req = (method: string, path: string, body?: Buffer, headers: Record<string, string> = {}, repo = name) =>
        call(hub, method, path.startsWith('/v2/box/') ? path : `/v2/box/${repo}${path}`, hub.publisher, body, headers);
      const pushBlobViaSession = async (b: Buffer) => {
        const s = await req('POST', '/blobs/uploads/');
        return req('PUT', `${s.headers.get('location')}?digest=${digestOf(b)}`, b, {
          'content-type': 'application/octet-stream',
        });
      };
      const putManifest = (ref: string, body: Buffer, type = OCI_MANIFEST) =>
        req('PUT', `/manifests/${ref}`, body, { 'content-type': type });
      const deleteAllowed = [200, 202, 404, 405];
      await pull(t, hub, d, req, pushBlobViaSession, putManifest, deleteAllowed);
      await push(t, d, req, putManifest, crossmount, deleteAllowed);
      await discovery(t, d, req, pushBlobViaSession, putManifest, deleteAllowed);
      await management(t, d, req, pushBlobViaSession, putManifest);
    },
  );

type Req = (
  method: string,
  path: string,
  body?: Buffer,
  headers?: Record<string, string>,
  repo?: string,
) => Promise<Answer>;
type Data = ReturnType<typeof testData>;

async function pull(
  t: Test,
  _hub: Hosted,
  d: Data,
  req: Req,
  pushBlob: (b: Buffer) => Promise<Answer>,
  putManifest: (ref: string, b: Buffer, type?: string) => Promise<Answer>,
  deleteAllowed: number[],
) {
  await t.test('Pull', async (t) => {
    await t.test('Setup', async (t) => {
      await t.test('Populate registry with test blob', async (t) => void ok2xx(t, await pushBlob(d.configs[0]!)));
      await t.test('Populate registry with test blob', async (t) => void ok2xx(t, await pushBlob(d.configs[1]!)));
      await t.test('Populate registry with test layer', async (t) => void ok2xx(t, await pushBlob(d.layer)));
      await t.test(
        'Populate registry with test manifest',
        async (t) => void ok2xx(t, await putManifest(TAG, d.manifests[0]!)),
      );
      await t.test(
        'Populate registry with test manifest',
        async (t) => void ok2xx(t, await putManifest(digestOf(d.manifests[1]!), d.manifests[1]!)),
      );
    });
    await t.test('Pull blobs', async (t) => {
      await t.test(
        'HEAD request to nonexistent blob should result in 404 response',
        async (t) => void t.equal((await req('HEAD', `/blobs/${d.dummyDigest}`)).status, 404),
      );
      await t.test('HEAD request to existing blob should yield 200', async (t) => {
        const r = await req('HEAD', `/blobs/${digestOf(d.configs[0]!)}`);
        t.equal(r.status, 200);
        t.equal(r.headers.get('docker-content-digest'), digestOf(d.configs[0]!));
      });
      await t.test(
        'GET nonexistent blob should result in 404 response',
        async (t) => void t.equal((await req('GET', `/blobs/${d.dummyDigest}`)).status, 404),
      );
      await t.test(
        'GET request to existing blob URL should yield 200',
        async (t) => void t.equal((await req('GET', `/blobs/${digestOf(d.configs[0]!)}`)).status, 200),
      );
    });
    await t.test('Pull manifests', async (t) => {
      const accept = { accept: OCI_MANIFEST };
      await t.test(
        'HEAD request to nonexistent manifest should return 404',
        async (t) => void t.equal((await req('HEAD', '/manifests/.INVALID_MANIFEST_NAME')).status, 404),
      );
      for (const i of [0, 1]) {
        await t.test(`HEAD request to manifest[${i}] path (digest) should yield 200 response`, async (t) => {
          const r = await req('HEAD', `/manifests/${digestOf(d.manifests[i]!)}`, undefined, accept);
          t.equal(r.status, 200);
          t.equal(r.headers.get('docker-content-digest'), digestOf(d.manifests[i]!));
        });
      }
      await t.test('HEAD request to manifest path (tag) should yield 200 response', async (t) => {
        const r = await req('HEAD', `/manifests/${TAG}`, undefined, accept);
        t.equal(r.status, 200);
        t.equal(r.headers.get('docker-content-digest'), digestOf(d.manifests[0]!));
      });
      await t.test(
        'GET nonexistent manifest should return 404',
        async (t) => void t.equal((await req('GET', '/manifests/.INVALID_MANIFEST_NAME')).status, 404),
      );
      for (const i of [0, 1])
        await t.test(
          `GET request to manifest[${i}] path (digest) should yield 200 response`,
          async (t) =>
            void t.equal((await req('GET', `/manifests/${digestOf(d.manifests[i]!)}`, undefined, accept)).status, 200),
        );
      await t.test(
        'GET request to manifest path (tag) should yield 200 response',
        async (t) => void t.equal((await req('GET', `/manifests/${TAG}`, undefined, accept)).status, 200),
      );
    });
    await t.test('Error codes', async (t) => {
      await t.test('400 response body should contain OCI-conforming JSON message', async (t) => {
        const r = await req('GET', '/manifests/sha256:totallywrong', undefined, { 'content-type': OCI_MANIFEST });
        oneOf(t, r, [400, 404]);
        if (r.status === 400) t.ok(ERROR_CODES.includes(r.json().errors[0].code));
      });
    });
    await t.test('Teardown', async (t) => {
      for (const i of [0, 1])
        await t.test(
          `Delete manifest[${i}] created in setup`,
          async (t) => void oneOf(t, await req('DELETE', `/manifests/${digestOf(d.manifests[i]!)}`), [200, 202, 405]),
        );
      for (const i of [0, 1])
        await t.test(
          `Delete config[${i}] blob created in setup`,
          async (t) => void oneOf(t, await req('DELETE', `/blobs/${digestOf(d.configs[i]!)}`), deleteAllowed),
        );
      await t.test(
        'Delete layer blob created in setup',
        async (t) => void oneOf(t, await req('DELETE', `/blobs/${digestOf(d.layer)}`), deleteAllowed),
      );
    });
  });
}

async function push(
  t: Test,
  d: Data,
  req: Req,
  putManifest: (ref: string, b: Buffer, type?: string) => Promise<Answer>,
  crossmount: string,
  deleteAllowed: number[],
) {
  await t.test('Push', async (t) => {
    let last: Answer | undefined;
    let prev: Answer | undefined;
    await t.test('Blob Upload Streamed', async (t) => {
      await t.test('PATCH request with blob in body should yield 202 response', async (t) => {
        const s = await req('POST', '/blobs/uploads/');
        t.ok(s.headers.get('location'));
        last = await req('PATCH', s.headers.get('location')!, d.blobA, { 'content-type': 'application/octet-stream' });
        t.equal(last.status, 202);
      });
      await t.test('PUT request to session URL with digest should yield 201 response', async (t) => {
        const r = await req('PUT', `${last!.headers.get('location')}?digest=${digestOf(d.blobA)}`, undefined, {
          'content-type': 'application/octet-stream',
          'content-length': '0',
        });
        t.equal(r.status, 201);
        t.ok(r.headers.get('location'));
      });
    });
    await t.test('Blob Upload Monolithic', async (t) => {
      await t.test(
        'GET nonexistent blob should result in 404 response',
        async (t) => void t.equal((await req('GET', `/blobs/${d.dummyDigest}`)).status, 404),
      );
      await t.test('POST request with digest and blob should yield a 201 or 202', async (t) => {
        last = await req('POST', `/blobs/uploads/?digest=${digestOf(d.configs[1]!)}`, d.configs[1]!, {
          'content-type': 'application/octet-stream',
        });
        t.ok(last.headers.get('location'));
        oneOf(t, last, [201, 202]);
      });
      await t.test(
        'GET request to blob URL from prior request should yield 200 or 404 based on response code',
        async (t) => {
          const r = await req('GET', `/blobs/${digestOf(d.configs[1]!)}`);
          t.equal(r.status, last!.status === 202 ? 404 : 200);
        },
      );
      await t.test('POST request should yield a session ID', async (t) => {
        last = await req('POST', '/blobs/uploads/');
        t.equal(last.status, 202);
      });
      await t.test('PUT upload of a blob should yield a 201 Response', async (t) => {
        const r = await req(
          'PUT',
          `${last!.headers.get('location')}?digest=${digestOf(d.configs[1]!)}`,
          d.configs[1]!,
          { 'content-type': 'application/octet-stream' },
        );
        t.ok(r.headers.get('location'));
        t.equal(r.status, 201);
      });
      await t.test(
        'GET request to existing blob should yield 200 response',
        async (t) => void t.equal((await req('GET', `/blobs/${digestOf(d.configs[1]!)}`)).status, 200),
      );
      await t.test('PUT upload of a layer blob should yield a 201 Response', async (t) => {
        const s = await req('POST', '/blobs/uploads/');
        const r = await req('PUT', `${s.headers.get('location')}?digest=${digestOf(d.layer)}`, d.layer, {
          'content-type': 'application/octet-stream',
        });
        t.ok(r.headers.get('location'));
        t.equal(r.status, 201);
      });
      await t.test(
        'GET request to existing layer should yield 200 response',
        async (t) => void t.equal((await req('GET', `/blobs/${digestOf(d.layer)}`)).status, 200),
      );
    });
    await t.test('Blob Upload Chunked', async (t) => {
      const range1 = `0-${d.chunk1.length - 1}`;
      const range2 = `${d.chunk1.length}-${d.blobB.length - 1}`;
      await t.test('Out-of-order blob upload should return 416', async (t) => {
        const s = await req('POST', '/blobs/uploads/', undefined, { 'content-length': '0' });
        t.ok(s.headers.get('location'));
        const r = await req('PATCH', s.headers.get('location')!, d.chunk2, {
          'content-type': 'application/octet-stream',
          'content-range': range2,
        });
        t.equal(r.status, 416);
      });
      await t.test('PATCH request with first chunk should return 202', async (t) => {
        prev = await req('POST', '/blobs/uploads/', undefined, { 'content-length': '0' });
        t.ok(prev.headers.get('location'));
        last = await req('PATCH', prev.headers.get('location')!, d.chunk1, {
          'content-type': 'application/octet-stream',
          'content-range': range1,
        });
        t.equal(last.status, 202);
        t.equal(last.headers.get('range'), range1);
      });
      await t.test(
        'Retry previous blob chunk should return 416',
        async (t) =>
          void t.equal(
            (
              await req('PATCH', prev!.headers.get('location')!, d.chunk1, {
                'content-type': 'application/octet-stream',
                'content-range': range1,
              })
            ).status,
            416,
          ),
      );
      await t.test('Get on stale blob upload should return 204 with a range and location', async (t) => {
        last = await req('GET', prev!.headers.get('location')!);
        t.equal(last.status, 204);
        t.ok(last.headers.get('location'));
        t.equal(last.headers.get('range'), range1);
      });
      await t.test('PATCH request with second chunk should return 202', async (t) => {
        last = await req('PATCH', last!.headers.get('location')!, d.chunk2, {
          'content-type': 'application/octet-stream',
          'content-range': range2,
        });
        t.equal(last.status, 202);
        t.ok(last.headers.get('location'));
      });
      await t.test('PUT request with digest should return 201', async (t) => {
        const r = await req('PUT', `${last!.headers.get('location')}?digest=${digestOf(d.blobB)}`, undefined, {
          'content-type': 'application/octet-stream',
          'content-length': '0',
        });
        t.equal(r.status, 201);
        t.ok(r.headers.get('location'));
      });
    });
    await t.test('Cross-Repository Blob Mount', async (t) => {
      await t.test('Cross-mounting of a blob without the from argument should yield session id', async (t) => {
        const r = await req('POST', `/blobs/uploads/?mount=${d.dummyDigest}`, undefined, {}, crossmount);
        t.equal(r.status, 202);
        t.ok(r.headers.get('location'));
      });
      await t.test("POST request to mount another repository's blob should return 201 or 202", async (t) => {
        last = await req(
          'POST',
          `/blobs/uploads/?mount=${digestOf(d.blobA)}&from=conformance/repo`,
          undefined,
          {},
          crossmount,
        );
        oneOf(t, last, [201, 202]);
      });
      await t.test('GET request to test digest within cross-mount namespace should return 200', async (t) => {
        t.equal(last!.status, 201, 'hub mounts a blob the user may read');
        t.equal(last!.headers.get('location'), `/v2/box/${crossmount}/blobs/${digestOf(d.blobA)}`);
        t.equal((await req('GET', last!.headers.get('location')!)).status, 200);
      });
      // "Cross-mounting of nonexistent blob should yield session id" runs only after a 202 above; hub answered 201.
      await t.test(
        'Cross-mounting without from, and automatic content discovery disabled should return a 202',
        async (t) =>
          void t.equal(
            (await req('POST', `/blobs/uploads/?mount=${digestOf(d.blobA)}`, undefined, {}, crossmount)).status,
            202,
          ),
      );
    });
    await t.test('Manifest Upload', async (t) => {
      await t.test(
        'GET nonexistent manifest should return 404',
        async (t) => void t.equal((await req('GET', '/manifests/.INVALID_MANIFEST_NAME')).status, 404),
      );
      await t.test('PUT should accept a manifest upload', async (t) => {
        for (let i = 0; i < 4; i++) {
          const r = await putManifest(`test${i}`, d.manifests[1]!);
          t.ok(r.headers.get('location'));
          t.equal(r.status, 201);
        }
      });
      await t.test('Registry should accept a manifest upload with no layers', async (t) => {
        const r = await putManifest('emptylayer', d.emptyLayerManifest);
        t.equal(r.status, 201, r.body.toString());
        t.ok(r.headers.get('location'));
      });
      await t.test(
        'GET request to manifest URL (digest) should yield 200 response',
        async (t) =>
          void t.equal(
            (await req('GET', `/manifests/${digestOf(d.manifests[1]!)}`, undefined, { accept: OCI_MANIFEST })).status,
            200,
          ),
      );
    });
    await t.test('Teardown', async (t) => {
      await t.test('Delete manifest created in tests', async (t) => {
        oneOf(t, await req('DELETE', `/manifests/${digestOf(d.manifests[1]!)}`), [200, 202, 405]);
        oneOf(t, await req('DELETE', `/manifests/${digestOf(d.emptyLayerManifest)}`), [200, 202, 405]);
      });
      await t.test(
        'Delete config blob created in tests',
        async (t) => void oneOf(t, await req('DELETE', `/blobs/${digestOf(d.configs[1]!)}`), deleteAllowed),
      );
      await t.test(
        'Delete layer blob created in setup',
        async (t) => void oneOf(t, await req('DELETE', `/blobs/${digestOf(d.layer)}`), deleteAllowed),
      );
    });
  });
}

async function discovery(
  t: Test,
  d: Data,
  req: Req,
  pushBlob: (b: Buffer) => Promise<Answer>,
  putManifest: (ref: string, b: Buffer, type?: string) => Promise<Answer>,
  deleteAllowed: number[],
) {
  await t.test('Content Discovery', async (t) => {
    let numTags = 4;
    const m4 = digestOf(d.manifests[4]!);
    await t.test('Setup', async (t) => {
      await t.test('Populate registry with test blob', async (t) => void ok2xx(t, await pushBlob(d.configs[2]!)));
      await t.test('Populate registry with test layer', async (t) => void ok2xx(t, await pushBlob(d.layer)));
      await t.test('Populate registry with test tags', async (t) => {
        for (let i = 0; i < numTags; i++) ok2xx(t, await putManifest(`test${i}`, d.manifests[2]!));
        t.equal((await req('GET', '/tags/list')).status, 200);
      });
      await t.test('References setup', async (t) => {
        t.equal(digestOf(d.emptyJson), 'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a');
        ok2xx(t, await pushBlob(d.emptyJson), 'empty JSON blob');
        ok2xx(t, await pushBlob(d.refBlobA), 'reference blob before the image');
        for (const [what, m, type] of [
          ['artifact A (config type)', d.refs.aConfig, OCI_MANIFEST],
          ['artifact A (artifactType)', d.refs.aLayer, OCI_MANIFEST],
          ['index artifact', d.refsIndex, OCI_INDEX],
        ] as const) {
          const r = await putManifest(digestOf(m), m, type);
          ok2xx(t, r, what);
          t.equal(r.headers.get('oci-subject'), m4, `${what}: OCI-Subject`);
        }
        ok2xx(t, await pushBlob(d.configs[4]!), 'config 4');
        ok2xx(t, await pushBlob(d.layer), 'layer');
        ok2xx(t, await putManifest(TAG, d.manifests[4]!), 'the subject image');
        ok2xx(t, await pushBlob(d.refBlobB), 'reference blob after the image');
        for (const [what, m] of [
          ['artifact B (config type)', d.refs.bConfig],
          ['artifact B (artifactType)', d.refs.bLayer],
        ] as const) {
          const r = await putManifest(digestOf(m), m);
          ok2xx(t, r, what);
          t.equal(r.headers.get('oci-subject'), m4);
        }
        const c = await putManifest(digestOf(d.refs.cLayer), d.refs.cLayer);
        ok2xx(t, c, 'an artifact of a subject never pushed');
        t.equal(c.headers.get('oci-subject'), digestOf(d.manifests[3]!));
      });
    });
    await t.test('Test content discovery endpoints (listing tags)', async (t) => {
      await t.test('GET request to list tags should yield 200 response', async (t) => {
        const r = await req('GET', '/tags/list');
        t.equal(r.status, 200);
        numTags = tagsOf(r).length;
      });
      await t.test('GET number of tags should be limitable by `n` query parameter', async (t) => {
        const r = await req('GET', `/tags/list?n=${Math.floor(numTags / 2)}`);
        t.equal(r.status, 200);
        t.equal(tagsOf(r).length, Math.floor(numTags / 2));
      });
      await t.test('GET start of tag is set by `last` query parameter', async (t) => {
        const n = Math.floor(numTags / 2);
        const first = tagsOf(await req('GET', `/tags/list?n=${n}`));
        const r = await req('GET', `/tags/list?n=${n}&last=${first[n - 1]}`);
        t.equal(r.status, 200);
        t.ok(tagsOf(r).length <= n);
        t.notOk(tagsOf(r).includes(first[n - 1]!), 'the page starts after `last`');
      });
    });
    await t.test('Test content discovery endpoints (listing references)', async (t) => {
      const annotationOf = (m: Buffer) =>
        (JSON.parse(m.toString()) as { annotations?: Record<string, string> }).annotations?.[ANNOTATION];
      const expected = new Map(
        [d.refs.aConfig, d.refs.aLayer, d.refs.bConfig, d.refs.bLayer, d.refsIndex].map((m) => [
          digestOf(m),
          annotationOf(m),
        ]),
      );
      await t.test('GET request to nonexistent blob should result in empty 200 response', async (t) => {
        const r = await req('GET', `/referrers/${d.dummyDigest}`);
        t.equal(r.status, 200);
        t.equal(r.headers.get('content-type'), OCI_INDEX);
        t.same(r.json().manifests, []);
      });
      await t.test('GET request to existing blob should yield 200', async (t) => {
        const r = await req('GET', `/referrers/${m4}`);
        t.equal(r.status, 200);
        t.equal(r.headers.get('content-type'), OCI_INDEX);
        const ms = r.json().manifests as { digest: string; annotations: Record<string, string> }[];
        t.equal(ms.length, 5);
        for (const m of ms) t.same(m.annotations, { [ANNOTATION]: expected.get(m.digest) });
      });
      await t.test('GET request to existing blob with filter should yield 200', async (t) => {
        const r = await req('GET', `/referrers/${m4}?artifactType=${encodeURIComponent(d.typeA)}`);
        t.equal(r.status, 200);
        t.equal(r.headers.get('content-type'), OCI_INDEX);
        t.equal(r.headers.get('oci-filters-applied'), 'artifactType');
        const ms = r.json().manifests as { digest: string; annotations: Record<string, string> }[];
        t.equal(ms.length, 2);
        for (const m of ms) t.same(m.annotations, { [ANNOTATION]: expected.get(m.digest) });
      });
      await t.test('GET request to missing manifest should yield 200', async (t) => {
        const r = await req('GET', `/referrers/${digestOf(d.manifests[3]!)}`);
        t.equal(r.status, 200);
        t.equal(r.headers.get('content-type'), OCI_INDEX);
        t.same(
          r.json().manifests.map((m: { digest: string }) => m.digest),
          [digestOf(d.refs.cLayer)],
        );
      });
    });
    await t.test('Teardown', async (t) => {
      await t.test('Delete created manifest & associated tags', async (t) => {
        for (const m of [
          d.refsIndex,
          d.manifests[2]!,
          d.manifests[4]!,
          d.refs.aConfig,
          d.refs.aLayer,
          d.refs.bConfig,
          d.refs.bLayer,
          d.refs.cLayer,
        ])
          oneOf(t, await req('DELETE', `/manifests/${digestOf(m)}`), deleteAllowed);
      });
      await t.test(
        'Delete config blob created in tests',
        async (t) => void oneOf(t, await req('DELETE', `/blobs/${digestOf(d.configs[2]!)}`), deleteAllowed),
      );
      await t.test(
        'Delete layer blob created in setup',
        async (t) => void oneOf(t, await req('DELETE', `/blobs/${digestOf(d.layer)}`), deleteAllowed),
      );
      await t.test('References teardown', async (t) => {
        for (const m of [d.refsIndex, d.refs.aConfig, d.refs.aLayer, d.manifests[4]!, d.refs.bConfig, d.refs.bLayer])
          oneOf(t, await req('DELETE', `/manifests/${digestOf(m)}`), deleteAllowed);
        for (const b of [d.configs[4]!, d.refBlobA, d.refBlobB, d.emptyJson])
          oneOf(t, await req('DELETE', `/blobs/${digestOf(b)}`), deleteAllowed);
      });
    });
  });
}

async function management(
  t: Test,
  d: Data,
  req: Req,
  pushBlob: (b: Buffer) => Promise<Answer>,
  putManifest: (ref: string, b: Buffer, type?: string) => Promise<Answer>,
) {
  await t.test('Content Management', async (t) => {
    let numTags = 0;
    await t.test('Setup', async (t) => {
      await t.test(
        'Populate registry with test config blob',
        async (t) => void ok2xx(t, await pushBlob(d.configs[3]!)),
      );
      await t.test('Populate registry with test layer', async (t) => void ok2xx(t, await pushBlob(d.layer)));
      await t.test(
        'Populate registry with test tag',
        async (t) => void ok2xx(t, await putManifest(TAG, d.manifests[3]!)),
      );
      await t.test('Check how many tags there are before anything gets deleted', async (t) => {
        const r = await req('GET', '/tags/list');
        t.equal(r.status, 200);
        numTags = tagsOf(r).length;
      });
    });
    await t.test('Manifest delete', async (t) => {
      await t.test(
        'DELETE request to manifest tag should return 202, unless tag deletion is disallowed (400/405)',
        async (t) => void t.equal((await req('DELETE', `/manifests/${TAG}`)).status, 202),
      );
      await t.test(
        'DELETE request to manifest (digest) should yield 202 response unless already deleted',
        async (t) => void oneOf(t, await req('DELETE', `/manifests/${digestOf(d.manifests[3]!)}`), [202, 404]),
      );
      await t.test(
        'GET request to deleted manifest URL should yield 404 response, unless delete is disallowed',
        async (t) => void t.equal((await req('GET', `/manifests/${digestOf(d.manifests[3]!)}`)).status, 404),
      );
      await t.test('GET request to tags list should reflect manifest deletion', async (t) => {
        const r = await req('GET', '/tags/list');
        if (numTags - 1 === 0) t.equal(r.status, 404);
        else t.equal(tagsOf(r).length, numTags - 1);
      });
    });
    await t.test('Blob delete', async (t) => {
      await t.test('DELETE request to blob URL should yield 202 response', async (t) => {
        // hub removes blobs by garbage collection only: 405 UNSUPPORTED, which the scenario allows.
        const r = await req('DELETE', `/blobs/${digestOf(d.configs[3]!)}`);
        t.equal(r.status, 405);
        t.equal(r.json().errors[0].code, 'UNSUPPORTED');
        t.equal((await req('DELETE', `/blobs/${digestOf(d.layer)}`)).status, 405);
      });
      // "GET request to deleted blob URL should yield 404 response" runs only where blob deletion is allowed.
    });
  });
}
