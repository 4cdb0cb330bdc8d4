import { Writable } from 'node:stream';
import t from 'tap';
import { createLogger } from '@hub/runtime/internal';
import { rawRequest, signFlagRequest, storeTiers, hubOnDatabase } from '@hub/testkit';
import { asked, groupSetup } from './group-setup.js';

/** Group registries with npm (decision 0051): one URL over a local registry and two upstreams (the real npm client: clients/group-npm.test.ts). */

const json = async (url: string, token: string, accept = 'application/json') => {
  const r = await rawRequest(url, { headers: { authorization: `Bearer ${token}`, accept } });
  return {
    status: r.status,
    headers: r.headers,
    doc: JSON.parse(r.body.toString('utf8') || 'null') as Record<string, any>,
  };
};

t.test('member_rules: include and exclude decide which member is asked about a name', async (t) => {
  const s = await groupSetup(t, {
    member_rules: [
      { member: 'npm-vendor', include: ['vendor*'] },
      { member: 'npm-public', exclude: ['vendor*'] },
    ],
  });
  const demo = await json(`${s.group}hubdemo`, s.reader);
  t.same(Object.keys(demo.doc.versions), ['1.0.0', '1.1.0'], 'the vendor member is not asked about hubdemo');
  t.equal(asked(s.vendor, 'hubdemo'), 0);
  const lib = await json(`${s.group}vendorlib`, s.reader);
  t.same(Object.keys(lib.doc.versions), ['2.0.0']);
  t.equal(asked(s.pub, 'vendorlib'), 0, 'the public member is never asked about an excluded name');
  const missing = await json(`${s.group}hubdemo/-/hubdemo-1.2.0.tgz`, s.reader);
  t.equal(missing.status, 404, 'a version only an unasked member has is not found');
});

t.test("a block on the group refuses a member's version; the access log names group and member", async (t) => {
  for (const tier of storeTiers().tiers) {
    await t.test(tier.name, async (t) => {
      const dir = t.testdir();
      const s = await groupSetup(t, {}, hubOnDatabase(await tier.database(t, dir)));
      const ok = await rawRequest(`${s.group}vendorlib/-/vendorlib-2.0.0.tgz`, {
        headers: { authorization: `Bearer ${s.reader}` },
      });
      t.equal(ok.status, 200);
      await s.hub.services.blocks.add({
        registry: 'npm',
        package_name: 'hubdemo',
        version: '1.2.0',
        reason: 'bad release',
        by: 'admin',
      });
      const refused = await json(`${s.group}hubdemo/-/hubdemo-1.2.0.tgz`, s.reader);
      t.equal(refused.status, 403);
      t.match(refused.doc.error.message, /bad release/);
      t.equal(asked(s.vendor, 'hubdemo/-/'), 0, 'the member never fetched the blocked tarball');
      // A block in one member applies there only: the other members still serve the name.
      await s.hub.services.blocks.add({
        registry: 'npm-public',
        package_name: 'hubdep',
        version: null,
        reason: 'public copy refused',
        by: 'admin',
      });
      t.equal((await json(`${s.group}hubdep`, s.reader)).status, 403, 'the only member listing it refuses it');

      const log = await s.hub.services.accessLog.query({ via_group: 'npm' }, { limit: 50 });
      const download = log.find((e) => e.action === 'download' && e.package === 'vendorlib' && e.outcome === 'allowed');
      t.match(download, { registry: 'npm-vendor', via_group: 'npm', version: '2.0.0' });
      t.ok(
        log.some((e) => e.package === 'hubdemo' && e.outcome === 'denied' && e.via_group === 'npm'),
        'the refusal names the group',
      );
    });
  }
});

t.test('writes to a group are refused with 405, naming where to publish', async (t) => {
  const s = await groupSetup(t);
  const r = await fetch(`${s.group}some-pkg`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${s.publisher}`, 'content-type': 'application/json' },
    body: '{}',
  });
  t.equal(r.status, 405);
  t.match(
    ((await r.json()) as { error: { message: string } }).error.message,
    /group registry: publish to one of its members \("npm-internal"\)/,
  );
});

t.test("the request log line names group and member; unlisting on the group hides a member's version", async (t) => {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  const s = await groupSetup(t, {}, { logger: createLogger({ level: 'info', destination: sink }) });
  t.equal(
    (
      await rawRequest(`${s.group}vendorlib/-/vendorlib-2.0.0.tgz`, {
        headers: { authorization: `Bearer ${s.reader}` },
      })
    ).status,
    200,
  );
  t.equal((await json(`${s.group}hubdemo`, s.reader)).status, 200);
  await s.close();
  const requests = lines.filter((l) => l.msg === 'request');
  t.match(
    requests.find((l) => String(l.path).endsWith('.tgz')),
    { registry: 'npm', group: 'npm', member: 'npm-vendor', route: 'registry-tarball', status: 200 },
  );
  t.match(
    requests.find((l) => l.path === '/proxy/npm/hubdemo'),
    { group: 'npm', member: 'npm-public,npm-vendor', route: 'package' },
  );

  const again = await groupSetup(t);
  await again.hub.services.unlisting.add({ registry: 'npm', package_name: 'hubdemo', version: '1.2.0' }, 'admin');
  t.same(
    Object.keys((await json(`${again.group}hubdemo`, again.reader)).doc.versions),
    ['1.0.0', '1.1.0'],
    'unlisted on the group: gone from the merged packument',
  );
  t.equal(
    (await json(`${again.internal.replace('npm-internal', 'npm-vendor')}hubdemo`, again.reader)).doc.versions[
      '1.2.0'
    ] !== undefined,
    true,
    'still listed by the member itself',
  );
});

t.test(
  'a member whose upstream fails is left out of merged listings; its error is served only when no member answers',
  async (t) => {
    const s = await groupSetup(t);
    s.vendor.down();
    const demo = await json(`${s.group}hubdemo`, s.reader);
    t.equal(demo.status, 200);
    t.same(Object.keys(demo.doc.versions), ['1.0.0', '1.1.0'], "the other members' versions");
    const lib = await json(`${s.group}vendorlib/-/vendorlib-2.0.0.tgz`, s.reader);
    t.equal(lib.status, 502, 'only the failing member could have it');
    t.equal(lib.doc.error.code, 'upstream_error');
    const dep = await rawRequest(`${s.group}hubdep/-/hubdep-1.0.0.tgz`, {
      headers: { authorization: `Bearer ${s.reader}` },
    });
    t.equal(dep.status, 200, 'a file another member has is served');
  },
);

t.test("a member's cool-down applies to what it serves through the group", async (t) => {
  // The vendor's versions were published in 2024: a cool-down of 100 years keeps all of them back.
  const s = await groupSetup(
    t,
    {},
    { members: { 'npm-vendor': { security: { min_release_age_secs: 100 * 365 * 24 * 3600 } } } },
  );
  t.same(
    Object.keys((await json(`${s.group}hubdemo`, s.reader)).doc.versions),
    ['1.0.0', '1.1.0'],
    "the vendor's 1.2.0 is held back",
  );
  const refused = await json(`${s.group}hubdemo/-/hubdemo-1.2.0.tgz`, s.reader);
  t.equal(refused.status, 403, 'its tarball is refused by the member that has it');
  t.equal(refused.doc.error.code, 'package_blocked');
});

t.test("flags apply per member and, on the group's name, to every member", async (t) => {
  const source = { name: 'osv', secret: 'group-flag-secret' };
  const s = await groupSetup(
    t,
    {},
    { config: { plugins: { load: ['@hub/admin', '@hub/flags'] }, flag_sources: [source] as never } },
  );
  const flag = async (registry: string, name: string, version: string) => {
    const apiPath = `/api/v1/flags/${source.name}`;
    const body = JSON.stringify({
      flags: [
        {
          external_id: `F-${registry}-${name}`,
          registry,
          package_name: name,
          version,
          kind: 'malware',
          effect: 'hard_block',
          summary: `bad ${name}`,
        },
      ],
    });
    const res = await fetch(`${s.url}${apiPath}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signFlagRequest({ secret: source.secret, method: 'POST', path: apiPath, body }),
      },
      body,
    });
    t.equal(res.status, 200, await res.text());
  };
  await flag('npm-public', 'hubdep', '1.0.0');
  await flag('npm', 'vendorlib', '2.0.0');
  const member = await json(`${s.group}hubdep/-/hubdep-1.0.0.tgz`, s.reader);
  t.equal(member.status, 403, 'a flag on the member refuses what it serves through the group');
  t.match(member.doc.error.message, /bad hubdep/);
  const group = await json(`${s.group}vendorlib/-/vendorlib-2.0.0.tgz`, s.reader);
  t.equal(group.status, 403, "a flag on the group refuses every member's copy");
  t.equal(asked(s.vendor, 'vendorlib/-/'), 0, 'the member never fetched it');
  const direct = await rawRequest(`${s.url}/proxy/npm-vendor/vendorlib/-/vendorlib-2.0.0.tgz`, {
    headers: { authorization: `Bearer ${s.reader}` },
  });
  t.equal(direct.status, 200, "the member itself, asked directly, is not under the group's flag");
});
