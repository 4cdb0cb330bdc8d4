import { Writable } from 'node:stream';
import t from 'tap';
import { createLogger } from '@hub/runtime/internal';
import { missingClient, npmEnv, rawRequest, signFlagRequest, storeTiers, hubOnDatabase, NPM_ABBREVIATED_TYPE } from '@hub/testkit';
import { hasNpm } from './npm-env.js';
import { asked, groupSetup } from './group-setup.js';

/** Group registries with npm (decision 0051): one URL over a local registry and two upstreams, with the real npm client. */
const noNpm = hasNpm ? false : missingClient('npm');

const json = async (url: string, token: string, accept = 'application/json') => {
  const r = await rawRequest(url, { headers: { authorization: `Bearer ${token}`, accept } });
  return { status: r.status, headers: r.headers, doc: JSON.parse(r.body.toString('utf8') || 'null') as Record<string, any> };
};

t.test('npm install resolves packages from all three members through one URL', { skip: noNpm }, async (t) => {
  const s = await groupSetup(t);
  const dev = npmEnv(t, s.internal, s.publisher);
  const pub = await dev.npm(['publish', dev.makePackage({ name: '@acme/internal-lib', version: '1.0.0', dependencies: { hubdep: '^1.0.0' } })]);
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
    const again = await rawRequest(`${s.group}hubdemo`, { headers: { authorization: `Bearer ${s.reader}`, accept, 'if-none-match': String(headers.get('etag')) } });
    t.equal(again.status, 304, 'conditional requests are answered for merged documents');
  }
  // npm search merges every member's page, a name listed once.
  const found = await json(`${s.group}-/v1/search?text=internal`, s.reader);
  t.equal(found.status, 200);
  t.same(found.doc.objects.map((o: { package: { name: string } }) => o.package.name), ['@acme/internal-lib'], 'the local member\'s match');
  const full = (await json(`${s.group}hubdemo`, s.reader)).doc;
  t.equal(full.time['1.2.0'], '2024-02-01T00:00:00.000Z', 'time of a version from the member that lists it');
  // A tarball is cached under the member that served it only.
  const rows = await s.hub.db('artifacts').select('registry', 'cache_key');
  t.ok(rows.some((r: { registry: string; cache_key: string }) => r.registry === 'npm-vendor' && r.cache_key.includes('hubdemo-1.2.0')));
  t.notOk(rows.some((r: { registry: string }) => r.registry === 'npm'), 'the group adds no copy');

  // HEAD and Range still work through the group.
  const head = await rawRequest(`${s.group}vendorlib/-/vendorlib-2.0.0.tgz`, { method: 'HEAD', headers: { authorization: `Bearer ${s.reader}` } });
  t.equal(head.status, 200);
  const range = await rawRequest(`${s.group}vendorlib/-/vendorlib-2.0.0.tgz`, { headers: { authorization: `Bearer ${s.reader}`, range: 'bytes=0-1' } });
  t.equal(range.status, 206);
  t.same([...range.body], [0x1f, 0x8b], 'the first two bytes: gzip magic');
});

t.test('a name published in the local member shadows the public one: the public upstream is never asked', { skip: noNpm }, async (t) => {
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
});

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

t.test('member_rules: include and exclude decide which member is asked about a name', async (t) => {
  const s = await groupSetup(t, { member_rules: [{ member: 'npm-vendor', include: ['vendor*'] }, { member: 'npm-public', exclude: ['vendor*'] }] });
  const demo = await json(`${s.group}hubdemo`, s.reader);
  t.same(Object.keys(demo.doc.versions), ['1.0.0', '1.1.0'], 'the vendor member is not asked about hubdemo');
  t.equal(asked(s.vendor, 'hubdemo'), 0);
  const lib = await json(`${s.group}vendorlib`, s.reader);
  t.same(Object.keys(lib.doc.versions), ['2.0.0']);
  t.equal(asked(s.pub, 'vendorlib'), 0, 'the public member is never asked about an excluded name');
  const missing = await json(`${s.group}hubdemo/-/hubdemo-1.2.0.tgz`, s.reader);
  t.equal(missing.status, 404, 'a version only an unasked member has is not found');
});

t.test('a block on the group refuses a member\'s version; the access log names group and member', async (t) => {
  for (const tier of storeTiers().tiers) {
    await t.test(tier.name, async (t) => {
      const dir = t.testdir();
      const s = await groupSetup(t, {}, hubOnDatabase(await tier.database(t, dir)));
      const ok = await rawRequest(`${s.group}vendorlib/-/vendorlib-2.0.0.tgz`, { headers: { authorization: `Bearer ${s.reader}` } });
      t.equal(ok.status, 200);
      await s.hub.services.blocks.add({ registry: 'npm', package_name: 'hubdemo', version: '1.2.0', reason: 'bad release', by: 'admin' });
      const refused = await json(`${s.group}hubdemo/-/hubdemo-1.2.0.tgz`, s.reader);
      t.equal(refused.status, 403);
      t.match(refused.doc.error.message, /bad release/);
      t.equal(asked(s.vendor, 'hubdemo/-/'), 0, 'the member never fetched the blocked tarball');
      // A block in one member applies there only: the other members still serve the name.
      await s.hub.services.blocks.add({ registry: 'npm-public', package_name: 'hubdep', version: null, reason: 'public copy refused', by: 'admin' });
      t.equal((await json(`${s.group}hubdep`, s.reader)).status, 403, 'the only member listing it refuses it');

      const log = await s.hub.services.accessLog.query({ via_group: 'npm' }, { limit: 50 });
      const download = log.find((e) => e.action === 'download' && e.package === 'vendorlib' && e.outcome === 'allowed');
      t.match(download, { registry: 'npm-vendor', via_group: 'npm', version: '2.0.0' });
      t.ok(log.some((e) => e.package === 'hubdemo' && e.outcome === 'denied' && e.via_group === 'npm'), 'the refusal names the group');
    });
  }
});

t.test('writes to a group are refused with 405, naming where to publish', async (t) => {
  const s = await groupSetup(t);
  const r = await fetch(`${s.group}some-pkg`, { method: 'PUT', headers: { authorization: `Bearer ${s.publisher}`, 'content-type': 'application/json' }, body: '{}' });
  t.equal(r.status, 405);
  t.match(((await r.json()) as { error: { message: string } }).error.message, /group registry: publish to one of its members \("npm-internal"\)/);
});

t.test('the request log line names group and member; unlisting on the group hides a member\'s version', async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  const s = await groupSetup(t, {}, { logger: createLogger({ level: 'info', destination: sink }) });
  t.equal((await rawRequest(`${s.group}vendorlib/-/vendorlib-2.0.0.tgz`, { headers: { authorization: `Bearer ${s.reader}` } })).status, 200);
  t.equal((await json(`${s.group}hubdemo`, s.reader)).status, 200);
  await s.close();
  const requests = lines.filter((l) => l.msg === 'request');
  t.match(requests.find((l) => String(l.path).endsWith('.tgz')), { registry: 'npm', group: 'npm', member: 'npm-vendor', route: 'registry-tarball', status: 200 });
  t.match(requests.find((l) => l.path === '/proxy/npm/hubdemo'), { group: 'npm', member: 'npm-public,npm-vendor', route: 'package' });

  const again = await groupSetup(t);
  await again.hub.services.unlisting.add({ registry: 'npm', package_name: 'hubdemo', version: '1.2.0' }, 'admin');
  t.same(Object.keys((await json(`${again.group}hubdemo`, again.reader)).doc.versions), ['1.0.0', '1.1.0'], 'unlisted on the group: gone from the merged packument');
  t.equal((await json(`${again.internal.replace('npm-internal', 'npm-vendor')}hubdemo`, again.reader)).doc.versions['1.2.0'] !== undefined, true, 'still listed by the member itself');
});

t.test('a member whose upstream fails is left out of merged listings; its error is served only when no member answers', async (t) => {
  const s = await groupSetup(t);
  s.vendor.down();
  const demo = await json(`${s.group}hubdemo`, s.reader);
  t.equal(demo.status, 200);
  t.same(Object.keys(demo.doc.versions), ['1.0.0', '1.1.0'], 'the other members\' versions');
  const lib = await json(`${s.group}vendorlib/-/vendorlib-2.0.0.tgz`, s.reader);
  t.equal(lib.status, 502, 'only the failing member could have it');
  t.equal(lib.doc.error.code, 'upstream_error');
  const dep = await rawRequest(`${s.group}hubdep/-/hubdep-1.0.0.tgz`, { headers: { authorization: `Bearer ${s.reader}` } });
  t.equal(dep.status, 200, 'a file another member has is served');
});

t.test('a member\'s cool-down applies to what it serves through the group', async (t) => {
  // The vendor's versions were published in 2024: a cool-down of 100 years keeps all of them back.
  const s = await groupSetup(t, {}, { members: { 'npm-vendor': { security: { min_release_age_secs: 100 * 365 * 24 * 3600 } } } });
  t.same(Object.keys((await json(`${s.group}hubdemo`, s.reader)).doc.versions), ['1.0.0', '1.1.0'], 'the vendor\'s 1.2.0 is held back');
  const refused = await json(`${s.group}hubdemo/-/hubdemo-1.2.0.tgz`, s.reader);
  t.equal(refused.status, 403, 'its tarball is refused by the member that has it');
  t.equal(refused.doc.error.code, 'package_blocked');
});

t.test('flags apply per member and, on the group\'s name, to every member', async (t) => {
  const source = { name: 'osv', secret: 'group-flag-secret' };
  const s = await groupSetup(t, {}, { config: { plugins: { load: ['@hub/admin', '@hub/flags'] }, flag_sources: [source] as never } });
  const flag = async (registry: string, name: string, version: string) => {
    const apiPath = `/api/v1/flags/${source.name}`;
    const body = JSON.stringify({ flags: [{ external_id: `F-${registry}-${name}`, registry, package_name: name, version, kind: 'malware', effect: 'hard_block', summary: `bad ${name}` }] });
    const res = await fetch(`${s.url}${apiPath}`, { method: 'POST', headers: { 'content-type': 'application/json', ...signFlagRequest({ secret: source.secret, method: 'POST', path: apiPath, body }) }, body });
    t.equal(res.status, 200, await res.text());
  };
  await flag('npm-public', 'hubdep', '1.0.0');
  await flag('npm', 'vendorlib', '2.0.0');
  const member = await json(`${s.group}hubdep/-/hubdep-1.0.0.tgz`, s.reader);
  t.equal(member.status, 403, 'a flag on the member refuses what it serves through the group');
  t.match(member.doc.error.message, /bad hubdep/);
  const group = await json(`${s.group}vendorlib/-/vendorlib-2.0.0.tgz`, s.reader);
  t.equal(group.status, 403, 'a flag on the group refuses every member\'s copy');
  t.equal(asked(s.vendor, 'vendorlib/-/'), 0, 'the member never fetched it');
  const direct = await rawRequest(`${s.url}/proxy/npm-vendor/vendorlib/-/vendorlib-2.0.0.tgz`, { headers: { authorization: `Bearer ${s.reader}` } });
  t.equal(direct.status, 200, 'the member itself, asked directly, is not under the group\'s flag');
});
