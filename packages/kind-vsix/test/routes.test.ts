import { Readable } from 'node:stream';
import t from 'tap';
import { withLocalDecoy } from '@hub/testkit';
import { openvsx, vscode_marketplace } from '../src/index.js';
import { VSIX, get, setup } from './setup.js';

const OVSX_FILE = '/api/hubpub/hubext/1.0.0/file/hubpub.hubext-1.0.0.vsix';
const VSPACKAGE = '/_apis/public/gallery/publishers/hubpub/vsextensions/hubext/1.0.0/vspackage';

for (const [reg, upstreamPath] of [
  ['ovsx', OVSX_FILE],
  ['vsm', VSPACKAGE],
] as const) {
  t.test(`${reg}: the VSIX is served, then cached with no upstream request`, async (t) => {
    const s = await setup(t);
    const base = `${s.url}/proxy/${reg}`;
    const first = await get(`${base}/hubpub.hubext/1.0.0/vsix`);
    t.equal(first.status, 200);
    t.same(first.body.subarray(0, 4), Buffer.from([0x50, 0x4b, 0x03, 0x04]), 'ZIP bytes');
    t.ok(first.body.equals(VSIX), 'the upstream VSIX, byte for byte');
    t.equal(s.upstream.count(upstreamPath), 1);
    await s.hub.artifacts.idle();
    const again = await get(`${base}/HubPub.HubExt/1.0.0/vsix`);
    t.equal(again.status, 200);
    t.ok(again.body.equals(VSIX), 'the same bytes from the cache (ids are case-insensitive)');
    t.equal(s.upstream.count(upstreamPath), 1, 'the second download made no upstream request');
  });

  t.test(`${reg}: a non-ZIP 200 is refused and not cached; 404 stays 404`, async (t) => {
    const s = await setup(t);
    const base = `${s.url}/proxy/${reg}`;
    const bad = await get(`${base}/hubpub.notzip/1.0.0/vsix`);
    t.equal(bad.status, 502, 'a text answer is not served as a VSIX');
    t.notOk(bad.body.toString().includes('this is not a zip'), 'the upstream text is not passed on');
    await s.hub.artifacts.idle();
    const before = s.upstream.count();
    t.equal((await get(`${base}/hubpub.notzip/1.0.0/vsix`)).status, 502);
    t.equal(s.upstream.count(), before + 1, 'nothing was cached: the upstream is asked again');
    const missing = await get(`${base}/hubpub.hubext/9.9.9/vsix`);
    t.equal(missing.status, 404);
    t.equal(missing.json().error.code, 'not_found');
    t.equal((await get(`${base}/hubpub.nosuch/1.0.0/vsix`)).status, 404);
  });

  // A block on the lower-case id is kindConformance's; here, the other spellings of the id.
  t.test(`${reg}: blocks answer 403 whatever the case of the id`, async (t) => {
    const s = await setup(t);
    const base = `${s.url}/proxy/${reg}`;
    await s.hub.services.blocks.add({
      registry: reg,
      package_name: 'hubpub.hubext',
      version: '1.0.0',
      reason: 'CVE-test',
      by: 'admin',
    });
    for (const id of ['HUBPUB.hubext', 'HubPub.HubExt']) {
      const res = await get(`${base}/${id}/1.0.0/vsix`);
      t.equal(res.status, 403, id);
      t.equal(res.json().error.code, 'package_blocked');
    }
    t.equal(s.upstream.count(), 0, 'no upstream request for a blocked VSIX');
  });

  t.test(`${reg}: hostile names and versions are 400 with no upstream request`, async (t) => {
    const s = await setup(t);
    const base = `${s.url}/proxy/${reg}`;
    for (const p of [
      '/..%2f..%2fetc.passwd/1.0.0/vsix',
      '/hubpub.hub%2fext/1.0.0/vsix',
      '/hubpub%2f..%2fx.hubext/1.0.0/vsix',
      '/hubpub.hubext/1.0.0%2f..%2f..%2fx/vsix',
      '/hubpub.hubext/..%2f1.0.0/vsix',
      '/nodot/1.0.0/vsix',
      '/hubpub.hub%3fext/1.0.0/vsix',
      '/hubpub.hub%25ext/1.0.0/vsix',
      `/hubpub.${'a'.repeat(200)}/1.0.0/vsix`,
    ]) {
      const res = await get(`${base}${p}`);
      t.equal(res.status, 400, p);
      t.equal(res.json().error.code, 'bad_request', `${p} code`);
    }
    for (const p of ['/%2e%2e/1.0.0/vsix', '/hubpub.hubext/%00/vsix', '/hubpub.hubext/a%5cb/vsix'])
      t.equal((await get(`${base}${p}`)).status, 400, p);
    t.equal(s.upstream.count(), 0, 'nothing reached the upstream');
  });
}

t.test('vsm: a gzip-encoded upstream answer is served as the ZIP itself', async (t) => {
  const s = await setup(t);
  const res = await get(`${s.vsm}/hubpub.gzext/1.0.0/vsix`);
  t.equal(res.status, 200);
  t.ok(res.body.equals(VSIX), 'the ZIP, not the gzip stream');
  t.notOk(res.headers.get('content-encoding'), 'no content-encoding passed on');
});

t.test('vsm: the decoded ZIP is what is cached', async (t) => {
  const s = await setup(t);
  t.equal((await get(`${s.vsm}/hubpub.gzext/1.0.0/vsix`)).status, 200);
  await s.hub.artifacts.idle();
  const again = await get(`${s.vsm}/hubpub.gzext/1.0.0/vsix`);
  t.equal(again.headers.get('x-hub-cache'), 'hit');
  t.ok(again.body.equals(VSIX));
  t.equal(s.upstream.count('/_apis/public/gallery/publishers/hubpub/vsextensions/gzext/'), 1, 'fetched once');
});

t.test('openvsx API: download URLs rewritten to hub, no upstream URL left, unlisted versions dropped', async (t) => {
  const s = await setup(t);
  const res = await get(`${s.ovsx}/api/hubpub/hubext`);
  t.equal(res.status, 200);
  const text = res.body.toString();
  t.notOk(text.includes(s.upstream.url), 'no upstream URL in the served document');
  const doc = res.json();
  t.equal(doc.files.download, `${s.ovsx}/api/hubpub/hubext/1.0.0/file/hubpub.hubext-1.0.0.vsix`);
  t.same(Object.keys(doc.files), ['download'], 'other file links (upstream) are removed');
  t.same(doc.allVersions, {
    latest: `${s.ovsx}/api/hubpub/hubext/latest`,
    '1.0.0': `${s.ovsx}/api/hubpub/hubext/1.0.0`,
    '0.9.0': `${s.ovsx}/api/hubpub/hubext/0.9.0`,
  });
  t.notOk('namespaceUrl' in doc || 'reviewsUrl' in doc);

  const v = await get(`${s.ovsx}/api/hubpub/hubext/0.9.0`);
  t.equal(v.status, 200);
  t.equal(v.json().files.download, `${s.ovsx}/api/hubpub/hubext/0.9.0/file/hubpub.hubext-0.9.0.vsix`);
  // The rewritten download URL works.
  const dl = await get(doc.files.download);
  t.equal(dl.status, 200);
  t.ok(dl.body.equals(VSIX));
  await s.hub.artifacts.idle();
  t.ok(
    (await get(`${s.ovsx}/hubpub.hubext/1.0.0/vsix`)).body.equals(VSIX),
    'the plain download route serves the same cached file',
  );
  t.equal(s.upstream.count(OVSX_FILE), 1, 'one upstream download for both routes');
  t.equal(
    (await get(`${s.ovsx}/api/hubpub/hubext/1.0.0/file/other.vsix`)).status,
    404,
    'only the VSIX file name is served',
  );

  await s.hub.services.unlisting.add({ registry: 'ovsx', package_name: 'hubpub.hubext', version: '0.9.0' }, 'admin');
  const after = (await get(`${s.ovsx}/api/hubpub/hubext`)).json();
  t.same(Object.keys(after.allVersions).sort(), ['1.0.0', 'latest'], 'the unlisted version left the listing');
  const versions = await get(`${s.ovsx}/api/hubpub/hubext/versions`);
  t.equal(versions.status, 200);
  t.same(
    versions.json(),
    { offset: 0, totalSize: 2, versions: { '1.0.0': `${s.ovsx}/api/hubpub/hubext/1.0.0` } },
    'the versions listing: rewritten, unlisted dropped',
  );

  // The newest version unlisted: /api/<ns>/<ext> describes the newest listed one instead.
  await s.hub.services.unlisting.remove({ registry: 'ovsx', package_name: 'hubpub.hubext', version: '0.9.0' });
  await s.hub.services.unlisting.add({ registry: 'ovsx', package_name: 'hubpub.hubext', version: '1.0.0' }, 'admin');
  const top = (await get(`${s.ovsx}/api/hubpub/hubext`)).json();
  t.equal(top.version, '0.9.0', 'the newest listed version is described');
  t.equal(top.files.download, `${s.ovsx}/api/hubpub/hubext/0.9.0/file/hubpub.hubext-0.9.0.vsix`);
  t.same(Object.keys(top.allVersions), ['0.9.0'], 'the unlisted version and the alias naming it are gone');
  t.notOk(JSON.stringify(top).includes(s.upstream.url), 'no upstream URL');
  t.equal(
    (await get(`${s.ovsx}/api/hubpub/hubext/latest`)).json().version,
    '0.9.0',
    'latest is the newest listed version too',
  );

  t.equal((await get(`${s.ovsx}/api/hubpub/nosuch`)).status, 404);
  t.equal((await get(`${s.ovsx}/api/hubpub/hubext/7.7.7`)).status, 404);
  t.equal((await get(`${s.ovsx}/api/hub%2fpub/hubext`)).status, 400);
});

t.test('probe ladders', async (t) => {
  const s = await setup(t);
  const pcOf = (name: string) => {
    const reg = s.hub.registries.get(name)!;
    return { registry: reg.info as never, upstream: reg.upstream, log: s.hub.log };
  };
  const o = pcOf('ovsx');
  const answers = await openvsx.probe!(o, 'hubpub.hubext', ['1.0.0', '0.9.0', '0.1.0']);
  t.same(
    answers.map((a) => [a.version, a.answer, a.rung]),
    [
      ['1.0.0', 'present', 'listing'],
      ['0.9.0', 'present', 'listing'],
      ['0.1.0', 'absent', 'version'],
    ],
  );
  t.equal((await openvsx.probe!(o, 'hubpub.nosuch', ['1.0.0']))[0]?.answer, 'absent');
  s.upstream.fault('/api/hubpub/hubext', { type: 'status', status: 503 });
  t.equal((await openvsx.probe!(o, 'hubpub.hubext', ['0.1.0']))[0]?.answer, 'inconclusive', 'a 5xx is never absent');
  s.upstream.clearFaults();

  const m = pcOf('vsm');
  const mk = await vscode_marketplace.probe!(m, 'hubpub.hubext', ['1.0.0', '2.0.0']);
  t.same(
    mk.map((a) => [a.version, a.answer]),
    [
      ['1.0.0', 'present'],
      ['2.0.0', 'absent'],
    ],
  );
  t.ok(
    s.upstream.requests.every((r) => r.method === 'HEAD' || r.url.startsWith('/api/')),
    'the marketplace probe only sends HEAD',
  );
  s.upstream.fault('/_apis/', { type: 'status', status: 429 });
  t.equal(
    (await vscode_marketplace.probe!(m, 'hubpub.hubext', ['1.0.0']))[0]?.answer,
    'inconclusive',
    'rate limited is inconclusive',
  );
});

t.test('SBOM: dependencies and extensionDependencies of extension/package.json', async (t) => {
  t.ok(openvsx.sbom!.appliesTo('hubpub.hubext/1.0.0/hubpub.hubext-1.0.0.vsix'));
  t.notOk(openvsx.sbom!.appliesTo('api/hubpub/hubext'));
  const deps = await openvsx.sbom!.extract(Readable.from([VSIX]), { maxBytes: 1 << 20, maxEntries: 100 });
  t.same(deps, [
    { name: 'left-pad', range: '^1.3.0', scope: 'runtime' },
    { name: 'hubpub.hubdep', range: '*', scope: 'runtime' },
  ]);
  t.same(await vscode_marketplace.sbom!.extract(Readable.from([VSIX]), { maxBytes: 1 << 20, maxEntries: 100 }), deps);
});

t.test(
  'a VSIX whose local headers show another extension/package.json: the SBOM reads the one the central directory names, as VS Code does',
  async (t) => {
    const crafted = withLocalDecoy(
      VSIX,
      'extension/package.json',
      JSON.stringify({ name: 'decoy', dependencies: { decoy: '6.6.6' } }),
    );
    t.same(await openvsx.sbom!.extract(Readable.from([crafted]), { maxBytes: 1 << 20, maxEntries: 100 }), [
      { name: 'left-pad', range: '^1.3.0', scope: 'runtime' },
      { name: 'hubpub.hubdep', range: '*', scope: 'runtime' },
    ]);
  },
);

t.test('coordinates: publisher.extension[@version], lower-cased', async (t) => {
  const c = openvsx.coordinate;
  t.same(c.parse('HubPub.HubExt@1.0.0'), { name: 'hubpub.hubext', version: '1.0.0' });
  t.same(c.parse('hubpub.hubext'), { name: 'hubpub.hubext' });
  t.equal(c.parse('nodot'), null);
  t.equal(c.parse('a/b.c'), null);
  t.equal(c.format({ name: 'hubpub.hubext', version: '1.0.0' }), 'hubpub.hubext@1.0.0');
});

t.test(
  'ovsx: "latest" is resolved to a version first: its block applies and the cache holds that version',
  async (t) => {
    const s = await setup(t);
    const base = `${s.url}/proxy/ovsx`;
    const latest = await get(`${base}/hubpub.hubext/latest/vsix`);
    t.equal(latest.status, 200);
    t.ok(latest.body.equals(VSIX));
    await s.hub.artifacts.idle();
    t.equal(
      (await get(`${base}/hubpub.hubext/1.0.0/vsix`)).headers.get('x-hub-cache'),
      'hit',
      'cached as 1.0.0, not as "latest"',
    );
    t.same(
      (await s.hub.db('artifacts').select('version')).map((r) => r.version),
      ['1.0.0'],
    );

    await s.hub.services.blocks.add({
      registry: 'ovsx',
      package_name: 'hubpub.hubext',
      version: '1.0.0',
      reason: 'CVE-test',
      by: 'admin',
    });
    const blocked = await get(`${base}/hubpub.hubext/latest/vsix`);
    t.equal(blocked.status, 403, 'a block on the version latest names holds for "latest"');
    t.equal(blocked.json().error.code, 'package_blocked');
  },
);

t.test('vsm: "latest" cannot be resolved without the gallery query, so it is refused rather than cached', async (t) => {
  const s = await setup(t);
  const res = await get(`${s.url}/proxy/vsm/hubpub.hubext/latest/vsix`);
  t.equal(res.status, 400);
  t.match(res.json().error.message, /name a version/);
  t.equal(s.upstream.count(), 0);
});
