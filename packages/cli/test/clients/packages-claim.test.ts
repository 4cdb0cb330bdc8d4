/**
 * Issue 26, medium 4: a hybrid publisher cannot take a public name over. A first publish of a name the upstream
 * has is refused (409 name_exists_upstream, printed by npm) until an administrator runs `hub packages claim`;
 * the claim is audited, and an upstream that cannot answer refuses the first publish with 503.
 */
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import admin from '@hub/admin';
import npm from '@hub/kind-npm';
import publishing from '@hub/publishing';
import zlib from 'node:zlib';
import { makeTar, npmEnv, npmFixtureHandler, rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { json, runHub } from '../run-hub.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../../kind-npm/test/fixtures/upstream/', import.meta.url));
const hasNpm = await promisify(execFile)('npm', ['--version']).then(
  () => true,
  () => false,
);

async function start(t: Test) {
  let down = false;
  const fixture = npmFixtureHandler(NPM_FIXTURES);
  const upstream = await startFixtureUpstream({
    handler: (req, res, up) => {
      if (!down) return fixture(req, res, up);
      res.writeHead(503).end('maintenance');
      return true;
    },
  });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [admin, npm, publishing],
    registries: [
      { name: 'npm', type: 'npm', mode: 'hybrid', upstream: upstream.url },
      { name: 'internal', type: 'npm', mode: 'local' },
    ],
  });
  t.teardown(() => hub.close());
  const publisher = await hub.token('ci', { roles: ['publisher'] });
  const reader = await hub.token('dev', { roles: ['reader'] });
  const cli = (args: string[]) => runHub(args, { HUB_URL: hub.url, HUB_TOKEN: hub.adminToken });
  return {
    ...hub,
    upstream,
    publisher,
    reader,
    cli,
    setDown: (d: boolean) => (down = d),
    base: `${hub.url}/proxy/npm`,
  };
}

t.test(
  'npm publish of a name the upstream has: 409 with the reason; after hub packages claim it is published, audited',
  { skip: hasNpm ? false : 'npm is not installed' },
  async (t) => {
    const s = await start(t);
    const ci = npmEnv(t, `${s.base}/`, s.publisher);
    const dev = npmEnv(t, `${s.base}/`, s.reader);
    // hubdemo is the upstream's (1.0.0, 1.1.0); a publisher tries to take it over with a higher version.
    const refused = await ci.npm(['publish'], ci.makePackage({ name: 'hubdemo', version: '9.9.9' }));
    t.not(refused.code, 0, 'npm publish fails');
    t.match(refused.stderr, /409/, `npm prints the status: ${refused.stderr}`);
    t.match(refused.stderr, /hubdemo exists in the upstream of hybrid registry npm/, 'and the reason');
    t.match(refused.stderr, /hub packages claim npm hubdemo/, 'and what an administrator can do');
    t.same(await s.hub.db('local_versions').select('version'), [], 'nothing was published');
    const stillPublic = JSON.parse(
      (
        await rawRequest(`${s.base}/hubdemo`, {
          headers: { accept: 'application/json', authorization: `Bearer ${s.reader}` },
        })
      ).body.toString(),
    ) as { versions: Record<string, unknown> };
    t.same(Object.keys(stillPublic.versions).sort(), ['1.0.0', '1.1.0'], 'readers still get the upstream versions');

    // A name the upstream does not have needs no claim.
    const fresh = await ci.npm(['publish'], ci.makePackage({ name: 'acme-fresh', version: '1.0.0' }));
    t.equal(fresh.code, 0, `a name the upstream lacks is published: ${fresh.stderr}`);

    const claimed = await s.cli(['packages', 'claim', 'npm', 'hubdemo']);
    t.equal(claimed.code, 0, claimed.stderr);
    t.match(claimed.stdout, /claimed npm hubdemo|claimed .*hubdemo/);
    t.equal((await s.cli(['packages', 'claim', 'npm', 'hubdemo'])).code, 1, 'a second claim is refused (409)');
    const list = json<{ claims: Array<{ package: string; claimed_by: string }> }>(
      await s.cli(['packages', 'claims', 'npm', '--json']),
    );
    t.match(list.claims, [{ package: 'hubdemo', claimed_by: 'admin' }]);

    const published = await ci.npm(['publish'], ci.makePackage({ name: 'hubdemo', version: '9.9.9' }));
    t.equal(published.code, 0, `after the claim npm publish works: ${published.stderr}`);
    const inst = await dev.npm(['install', '--no-save', 'hubdemo']);
    t.equal(inst.code, 0, inst.stderr);
    t.equal(dev.installed('hubdemo')?.version, '9.9.9', "the claimed name is now the registry's own");

    await s.hub.audit.flush();
    const audit = await s.hub
      .db('access_events')
      .where({ code: 'name_exists_upstream' })
      .orWhereIn('action', ['package_claim', 'publish'])
      .orderBy('id')
      .select('action', 'user_id', 'registry', 'package', 'status', 'code');
    t.match(
      audit,
      [
        { user_id: 'ci', registry: 'npm', package: 'hubdemo', status: 409, code: 'name_exists_upstream' },
        { action: 'publish', package: 'acme-fresh', status: 201 },
        { action: 'package_claim', user_id: 'admin', registry: 'npm', package: 'hubdemo', status: 201 },
        { action: 'package_claim', status: 409 },
        { action: 'publish', user_id: 'ci', package: 'hubdemo', status: 201 },
      ],
      'the refusal, the claim and the publishes are audit-log rows',
    );

    const unclaimed = await s.cli(['packages', 'unclaim', 'npm', 'hubdemo']);
    t.equal(unclaimed.code, 0, unclaimed.stderr);
    const next = await ci.npm(['publish'], ci.makePackage({ name: 'hubdemo', version: '10.0.0' }));
    t.equal(next.code, 0, "a name published here is the registry's: later versions need no claim");
  },
);

t.test(
  'an upstream that cannot answer refuses a first publish with 503; claims are for hybrid registries only',
  async (t) => {
    const s = await start(t);
    const put = async (name: string) => {
      const tarball = zlib.gzipSync(makeTar({ 'package/package.json': JSON.stringify({ name, version: '1.0.0' }) }));
      const doc = {
        _id: name,
        name,
        'dist-tags': { latest: '1.0.0' },
        versions: { '1.0.0': { name, version: '1.0.0' } },
        _attachments: { [`${name}-1.0.0.tgz`]: { data: tarball.toString('base64'), length: tarball.length } },
      };
      const res = await fetch(`${s.base}/${name}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${s.publisher}`, 'content-type': 'application/json' },
        body: JSON.stringify(doc),
      });
      return {
        status: res.status,
        headers: Object.fromEntries(res.headers),
        body: Buffer.from(await res.arrayBuffer()),
      };
    };
    s.setDown(true);
    const r = await put('acme-new');
    t.equal(r.status, 503, 'refused while the upstream cannot say');
    t.equal(r.headers['retry-after'], '30');
    const body = JSON.parse(r.body.toString()) as { error: { code: string; message: string } };
    t.equal(body.error.code, 'service_unavailable');
    t.match(body.error.message, /could not say whether it has acme-new/);
    t.equal((await s.cli(['packages', 'claim', 'npm', 'acme-new'])).code, 0);
    t.equal((await put('acme-new')).status, 201, 'a claimed name is published without asking the upstream');
    t.equal(
      s.upstream.count((q) => q.url.includes('acme-new')),
      1,
      'the upstream was asked once, before the claim',
    );
    s.setDown(false);

    const conflict = await put('hubdemo');
    t.equal(conflict.status, 409);
    t.equal((JSON.parse(conflict.body.toString()) as { error: { code: string } }).error.code, 'name_exists_upstream');
    const local = await s.cli(['packages', 'claim', 'internal', 'hubdemo']);
    t.equal(local.code, 1, 'a local registry has no upstream to claim from');
    t.match(local.stderr, /local registry: names are claimed in hybrid registries/);
    t.equal(
      (await s.cli(['packages', 'unclaim', 'npm', 'nothing-here'])).code,
      1,
      'unclaiming what is not claimed: 404',
    );
  },
);
