import t from 'tap';
import { missingClient, npmEnv, rawRequest, NPM_ABBREVIATED_TYPE } from '@hub/testkit';
import { hasNpm } from '../npm-env.js';
import { asked, groupSetup } from '../group-setup.js';

/** Group registries with npm (decision 0051): one URL over a local registry and two upstreams, with the real npm client. */
const noNpm = hasNpm ? false : missingClient('npm');

const json = async (url: string, token: string, accept = 'application/json') => {
  const r = await rawRequest(url, { headers: { authorization: `Bearer ${token}`, accept } });
  return {
    status: r.status,
    headers: r.headers,
    doc: JSON.parse(r.body.toString('utf8') || 'null') as Record<string, any>,
  };
};

t.test('npm install resolves packages from all three members through one URL', { skip: noNpm }, async (t) => {
  const s = await groupSetup(t);
  const dev = npmEnv(t, s.internal, s.publisher);
  const pub = await dev.npm([
    'publish',
    dev.makePackage({ name: '@acme/internal-lib', version: '1.0.0', dependencies: { hubdep: '^1.0.0' } }),
  ]);
  t.equal(pub.code, 0, pub.stderr);

  const app = npmEnv(t, s.group, s.reader);
  const r = await app.install('@acme/internal-lib', 'hubdemo', 'vendorlib');
  t.equal(r.code, 0, r.stderr);
  t.equal(app.installed('@acme/internal-lib')?.version, '1.0.0', 'from the local member');
  // dist-tags come from the first member that has the package: the public member's latest, though the vendor has 1.2.0.
  t.equal(app.installed('hubdemo')?.version, '1.1.0', 'latest from the first member that has the package');
  t.equal(app.installed('vendorlib')?.version, '2.0.0', 'from the third member');
  t.equal(app.installed('hubdep')?.version, '1.0.0', 'a dependency from the second member');

  const exact = await app.install('hubdemo@1.2.0');
  t.equal(exact.code, 0, exact.stderr);
  t.equal(app.installed('hubdemo')?.version, '1.2.0', 'a version only the third member lists');

  // Both representations list every member's versions, first member first, tarballs at the group.
  for (const accept of ['application/json', NPM_ABBREVIATED_TYPE]) {
    const { status, doc, headers } = await json(`${s.group}hubdemo`, s.reader, accept);
    t.equal(status, 200);
    t.same(Object.keys(doc.versions), ['1.0.0', '1.1.0', '1.2.0'], accept);
    t.equal(doc['dist-tags'].latest, '1.1.0');
    t.match(doc.versions['1.2.0'].dist.tarball, `${s.group}hubdemo/-/hubdemo-1.2.0.tgz`);
    t.match(headers.get('content-type'), accept);
    t.ok(headers.get('etag'), 'a merged document has an ETag');
    const again = await rawRequest(`${s.group}hubdemo`, {
      headers: { authorization: `Bearer ${s.reader}`, accept, 'if-none-match': String(headers.get('etag')) },
    });
    t.equal(again.status, 304, 'conditional requests are answered for merged documents');
  }
  // npm search merges every member's page, a name listed once.
  const found = await json(`${s.group}-/v1/search?text=internal`, s.reader);
  t.equal(found.status, 200);
  t.same(
    found.doc.objects.map((o: { package: { name: string } }) => o.package.name),
    ['@acme/internal-lib'],
    "the local member's match",
  );
  const full = (await json(`${s.group}hubdemo`, s.reader)).doc;
  t.equal(full.time['1.2.0'], '2024-02-01T00:00:00.000Z', 'time of a version from the member that lists it');
  // A tarball is cached under the member that served it only.
  const rows = await s.hub.db('artifacts').select('registry', 'cache_key');
  t.ok(
    rows.some(
      (r: { registry: string; cache_key: string }) =>
        r.registry === 'npm-vendor' && r.cache_key.includes('hubdemo-1.2.0'),
    ),
  );
  t.notOk(
    rows.some((r: { registry: string }) => r.registry === 'npm'),
    'the group adds no copy',
  );

  // HEAD and Range still work through the group.
  const head = await rawRequest(`${s.group}vendorlib/-/vendorlib-2.0.0.tgz`, {
    method: 'HEAD',
    headers: { authorization: `Bearer ${s.reader}` },
  });
  t.equal(head.status, 200);
  const range = await rawRequest(`${s.group}vendorlib/-/vendorlib-2.0.0.tgz`, {
    headers: { authorization: `Bearer ${s.reader}`, range: 'bytes=0-1' },
  });
  t.equal(range.status, 206);
  t.same([...range.body], [0x1f, 0x8b], 'the first two bytes: gzip magic');
});

t.test(
  'a name published in the local member shadows the public one: the public upstream is never asked',
  { skip: noNpm },
  async (t) => {
    const s = await groupSetup(t);
    const dev = npmEnv(t, s.internal, s.publisher);
    t.equal((await dev.npm(['publish', dev.makePackage({ name: '@hubtest/scoped', version: '5.0.0' })])).code, 0);
    const app = npmEnv(t, s.group, s.reader);
    const r = await app.install('@hubtest/scoped');
    t.equal(r.code, 0, r.stderr);
    t.equal(app.installed('@hubtest/scoped')?.version, '5.0.0');
    t.same(Object.keys((await json(`${s.group}@hubtest%2fscoped`, s.reader)).doc.versions), ['5.0.0']);
    const old = await app.install('@hubtest/scoped@1.0.0');
    t.not(old.code, 0, 'the public 1.0.0 is not served');
    t.equal(asked(s.pub, '@hubtest/scoped'), 0, 'the public fixture never received a request for the shadowed name');
    t.equal(asked(s.vendor, '@hubtest/scoped'), 0);
  },
);

t.test('allow_upstream_names lets the upstream members serve a published name', { skip: noNpm }, async (t) => {
  const s = await groupSetup(t, { allow_upstream_names: ['@hubtest/*'] });
  const dev = npmEnv(t, s.internal, s.publisher);
  t.equal((await dev.npm(['publish', dev.makePackage({ name: '@hubtest/scoped', version: '5.0.0' })])).code, 0);
  const { doc } = await json(`${s.group}@hubtest%2fscoped`, s.reader);
  t.same(Object.keys(doc.versions).sort(), ['1.0.0', '5.0.0']);
  t.equal(doc['dist-tags'].latest, '5.0.0', 'the first member that has the package gives the tags');
  const app = npmEnv(t, s.group, s.reader);
  const r = await app.install('@hubtest/scoped@1.0.0');
  t.equal(r.code, 0, r.stderr);
  t.equal(app.installed('@hubtest/scoped')?.version, '1.0.0');
  t.ok(asked(s.pub, '@hubtest/scoped') > 0, 'the public member was asked');
});
