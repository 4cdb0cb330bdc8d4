import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { goFixtureHandler, makeZip, rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import go from '../src/index.js';
import { FIXTURES } from './setup.js';
import publishing from '@hub/publishing';
import { goEnvVars, goHome, noGo, run } from './go-env.js';

/** Issue 13: go modules published with three PUTs (.info, .mod, .zip) and read back with the real go command. */

async function start(t: Test, registry: Record<string, unknown>) {
  const upstream = await startFixtureUpstream({ handler: goFixtureHandler(FIXTURES) });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [go, publishing],
    registries: [
      { name: 'go', type: 'go', ...(registry.mode === 'local' ? {} : { upstream: upstream.url }), ...registry },
    ],
    // go sends credentials only over HTTPS, so reads are anonymous here; every write still needs a token.
    config: { auth: { anonymous: ['source:read'] } },
  });
  t.teardown(() => hub.close());
  const publisher = await hub.token('ci', { roles: ['publisher'] });
  const reader = await hub.token('dev', { roles: ['reader'] });
  return { hub: hub.hub, url: hub.url, upstream, publisher, reader, base: `${hub.url}/proxy/go` };
}

const escape = (s: string) => s.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);

/** The three files of a module version; `lib.go` says which version it is. */
function moduleFiles(module: string, version: string, extra: Record<string, string> = {}) {
  const pkg = module.split('/').at(-1)!;
  return {
    info: Buffer.from(JSON.stringify({ Version: version, Time: '2024-05-01T10:00:00Z' })),
    mod: Buffer.from(`module ${module}\n\ngo 1.19\n`),
    zip: makeZip({
      [`${module}@${version}/go.mod`]: `module ${module}\n\ngo 1.19\n`,
      [`${module}@${version}/${pkg}.go`]: `package ${pkg}\n\n// Version is the published version.\nconst Version = "${version}"\n`,
      ...extra,
    }),
  };
}

async function put(
  url: string,
  body: Buffer,
  token?: string,
): Promise<{ status: number; json: { error?: { code: string; message: string }; published?: boolean } }> {
  const res = await fetch(url, { method: 'PUT', body, headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, json: (await res.json()) as never };
}

/** Publishes a version: the three PUTs in the given order; returns their statuses. */
async function publish(
  base: string,
  token: string,
  module: string,
  version: string,
  order: readonly ('info' | 'mod' | 'zip')[] = ['info', 'mod', 'zip'],
) {
  const files = moduleFiles(module, version);
  const statuses: number[] = [];
  for (const ext of order)
    statuses.push((await put(`${base}/${escape(module)}/@v/${version}.${ext}`, files[ext], token)).status);
  return statuses;
}

/** A clean go environment: its own HOME, module cache and GOPATH; hub is the only proxy; no checksum database for our modules. */
function goEnv(t: Test, goproxy: string, nosumdb: string) {
  const home = goHome(t, 'hub-go-publish-');
  // The checksum database stays on for other modules (GOSUMDB unset), off for ours.
  const env = goEnvVars(home, goproxy, { GOSUMDB: undefined, GONOSUMDB: nosumdb, GOFLAGS: '-mod=mod -modcacherw' });
  const goCmd = (cwd: string, ...args: string[]) => run('go', args, { cwd, env, timeout: 120_000 });
  const download = async (mod: string) => {
    const out = await goCmd(home, 'mod', 'download', '-json', mod).then(
      (r) => r.stdout,
      (e: { stdout: string }) => e.stdout,
    );
    return JSON.parse(out) as { Path: string; Version: string; Zip?: string; GoMod?: string; Error?: string };
  };
  return { home, goCmd, download };
}

t.test('go: publish to a local registry, then go mod download and go build through hub', { skip: noGo }, async (t) => {
  const s = await start(t, { mode: 'local' });
  const mod = 'example.com/Acme/lib';
  t.same(await publish(s.base, s.publisher, mod, 'v1.0.0'), [201, 201, 201]);
  t.same(await publish(s.base, s.publisher, mod, 'v1.1.0', ['zip', 'info', 'mod']), [201, 201, 201], 'any order');

  const list = await rawRequest(`${s.base}/example.com/!acme/lib/@v/list`);
  t.same(list.body.toString().trim().split('\n'), ['v1.0.0', 'v1.1.0'], '@v/list from the database');
  t.equal((await rawRequest(`${s.base}/example.com/!acme/lib/@latest`)).json().Version, 'v1.1.0');
  t.equal(
    (await rawRequest(`${s.base}/example.com/!acme/nosuch/@v/list`)).status,
    404,
    'an unknown module in a local registry',
  );

  const g = goEnv(t, s.base, 'example.com/Acme');
  const dl = await g.download(`${mod}@v1.0.0`);
  t.equal(dl.Error, undefined);
  t.equal(dl.Version, 'v1.0.0');
  t.ok(dl.Zip && fs.existsSync(dl.Zip), 'the zip is in the module cache');

  // A consumer module resolves @latest through hub and builds against it.
  const app = path.join(g.home, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'go.mod'), 'module example.com/app\n\ngo 1.19\n');
  fs.writeFileSync(
    path.join(app, 'main.go'),
    `package main\n\nimport (\n\t"fmt"\n\n\t"${mod}"\n)\n\nfunc main() { fmt.Println(lib.Version) }\n`,
  );
  await g.goCmd(app, 'get', `${mod}@latest`);
  t.match(
    fs.readFileSync(path.join(app, 'go.mod'), 'utf8'),
    /example\.com\/Acme\/lib v1\.1\.0/,
    'go get picked the highest published version',
  );
  const out = await g.goCmd(app, 'run', '.');
  t.equal(out.stdout.trim(), 'v1.1.0', 'the program built from the published zip');

  await s.hub.audit.flush();
  const rows = await s.hub
    .db('access_events')
    .where({ action: 'publish' })
    .orderBy('id')
    .select('user_id', 'package', 'version', 'status');
  t.same(
    rows,
    [
      { user_id: 'ci', package: mod, version: 'v1.0.0', status: 201 },
      { user_id: 'ci', package: mod, version: 'v1.1.0', status: 201 },
    ],
    'one publish row per version, with its actor',
  );
  t.equal(
    (await s.hub.db('events').where({ type: 'package_published' })).length,
    2,
    'one package_published event per version',
  );
});

t.test('go: a version is listed only once its three files are stored', async (t) => {
  const s = await start(t, { mode: 'local' });
  const files = moduleFiles('example.com/half', 'v0.1.0');
  const first = await put(`${s.base}/example.com/half/@v/v0.1.0.mod`, files.mod, s.publisher);
  t.equal(first.status, 201);
  t.equal(first.json.published, false);
  t.equal((await rawRequest(`${s.base}/example.com/half/@v/list`)).status, 404, 'not listed yet');
  t.equal((await put(`${s.base}/example.com/half/@v/v0.1.0.info`, files.info, s.publisher)).json.published, false);
  t.equal(
    (await put(`${s.base}/example.com/half/@v/v0.1.0.zip`, files.zip, s.publisher)).json.published,
    true,
    'the third file records it',
  );
  t.equal((await rawRequest(`${s.base}/example.com/half/@v/list`)).body.toString(), 'v0.1.0\n');
});

t.test('go: the refusals', async (t) => {
  const s = await start(t, { mode: 'local', max_publish_bytes: 4000 });
  const mod = 'example.com/acme/tool';
  const at = (ext: string, v = 'v1.0.0') => `${s.base}/${mod}/@v/${v}.${ext}`;
  const files = moduleFiles(mod, 'v1.0.0');

  t.equal((await put(at('mod'), files.mod)).status, 401, 'no token');
  t.equal((await put(at('mod'), files.mod, s.reader)).status, 403, 'a reader may not publish');

  const wrongPrefix = await put(
    at('zip'),
    makeZip({ 'example.com/acme/other@v1.0.0/x.go': 'package x\n' }),
    s.publisher,
  );
  t.equal(wrongPrefix.status, 400, 'a zip whose files are not under <module>@<version>/');
  t.match(wrongPrefix.json.error?.message, /not under example\.com\/acme\/tool@v1\.0\.0\//);
  const wrongVersionPrefix = await put(
    at('zip'),
    makeZip({ 'example.com/acme/tool@v1.0.1/x.go': 'package x\n' }),
    s.publisher,
  );
  t.equal(wrongVersionPrefix.status, 400, 'the prefix names another version');
  const escapes = await put(
    at('zip'),
    makeZip({ [`${mod}@v1.0.0/x.go`]: 'package x\n', [`${mod}@v1.0.0/../../../etc/cron.d/x`]: 'boom' }),
    s.publisher,
  );
  t.equal(escapes.status, 400, 'a zip entry that leaves its place');
  t.equal((await put(at('zip'), Buffer.from('PK\x03\x04 but not a zip'), s.publisher)).status, 400, 'a broken zip');

  const otherModule = await put(at('mod'), Buffer.from('module example.com/acme/evil\n'), s.publisher);
  t.equal(otherModule.status, 400, 'a .mod declaring another module');
  t.match(otherModule.json.error?.message, /declares module "example\.com\/acme\/evil"/);
  t.equal(
    (await put(at('mod'), Buffer.from('go 1.19\n'), s.publisher)).status,
    400,
    'a .mod without a module directive',
  );
  const otherVersion = await put(at('info'), Buffer.from('{"Version":"v2.0.0"}'), s.publisher);
  t.equal(otherVersion.status, 400, 'an .info naming another version');
  t.match(otherVersion.json.error?.message, /Version "v2\.0\.0"/);
  t.equal((await put(at('info'), Buffer.from('not json'), s.publisher)).status, 400);

  const traversal = await rawRequest(`${s.base}/example.com/%2e%2e/%2e%2e/etc/@v/v1.0.0.zip`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${s.publisher}` },
  });
  t.equal(traversal.status, 400, 'a module path that leaves its place');
  const badVersion = await rawRequest(`${s.base}/${mod}/@v/..%2f..%2fx.zip`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${s.publisher}` },
  });
  t.equal(badVersion.status, 400, 'a version that leaves its place');
  const large = await put(at('zip'), makeZip({ [`${mod}@v1.0.0/big.txt`]: 'x'.repeat(5000) }), s.publisher);
  t.equal(large.status, 413);
  t.equal(large.json.error?.code, 'payload_too_large');
  t.same(await s.hub.db('artifacts').select('cache_key'), [], 'no refused file was stored');
  t.same(await s.hub.db('local_versions').select('version'), [], 'no version recorded');

  t.same(await publish(s.base, s.publisher, mod, 'v1.0.0'), [201, 201, 201]);
  const again = await put(at('zip'), files.zip, s.publisher);
  t.equal(again.status, 409, 'a published file never changes');
  t.equal(again.json.error?.code, 'conflict');

  const del = await rawRequest(`${s.base}/${mod}/@v/v1.0.0`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${s.publisher}` },
  });
  t.equal(del.status, 204, 'DELETE <module>/@v/<version> removes the version');
  t.equal((await rawRequest(`${s.base}/${mod}/@v/v1.0.0.zip`)).status, 404, 'its files are gone');
  t.equal(
    (
      await rawRequest(`${s.base}/${mod}/@v/v1.0.0`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${s.publisher}` },
      })
    ).status,
    404,
  );
  const republish = await publish(s.base, s.publisher, mod, 'v1.0.0');
  t.same(republish, [409, 409, 409], 'a deleted version number is never published again');
  t.same(await publish(s.base, s.publisher, mod, 'v1.0.1'), [201, 201, 201], 'the module takes new versions');
  t.equal((await rawRequest(`${s.base}/${mod}/@v/list`)).body.toString(), 'v1.0.1\n');
  await s.hub.audit.flush();
  t.same(await s.hub.db('access_events').where({ action: 'unpublish' }).select('user_id', 'package', 'version'), [
    { user_id: 'ci', package: mod, version: 'v1.0.0' },
  ]);

  const proxy = await start(t, { mode: 'proxy' });
  const refused = await put(`${proxy.base}/${mod}/@v/v1.0.0.mod`, files.mod, proxy.publisher);
  t.equal(refused.status, 405, 'a proxy registry takes no publish');
  t.equal(refused.json.error?.code, 'method_not_allowed');
});

t.test(
  'go hybrid: a module published here is never asked of the upstream; go downloads the local version',
  { skip: noGo },
  async (t) => {
    const s = await start(t, { mode: 'hybrid' });
    // The upstream fixture serves example.com/Hub/demo v1.0.0 and v1.1.0; publish v1.2.0 of the same module here,
    // claimed for the registry by an administrator (decision 0043).
    await s.hub.services.local.claim('go', 'example.com/Hub/demo', 'admin');
    t.same(await publish(s.base, s.publisher, 'example.com/Hub/demo', 'v1.2.0'), [201, 201, 201]);
    t.equal(
      (await rawRequest(`${s.base}/example.com/!hub/demo/@v/list`)).body.toString(),
      'v1.2.0\n',
      'local_only: only the local versions are listed',
    );
    const g = goEnv(t, s.base, 'example.com/Hub');
    const latest = await g.download('example.com/Hub/demo@latest');
    t.equal(latest.Version, 'v1.2.0', 'go resolves @latest to the published version');
    const upstreamOnly = await g.download('example.com/Hub/demo@v1.0.0');
    t.ok(upstreamOnly.Error, 'the upstream copy of a module published here is not served');
    t.equal(
      s.upstream.count((r) => r.url.startsWith('/example.com/!hub/demo/')),
      0,
      'the upstream was never asked about the module',
    );

    // Other modules still come from the upstream.
    t.equal((await g.download('github.com/pkg/errors@v0.9.1')).Version, 'v0.9.1');
  },
);

t.test(
  'go hybrid: with local_only cleared, lists merge local and upstream versions and a local version wins',
  async (t) => {
    const s = await start(t, { mode: 'hybrid' });
    t.same(
      await publish(s.base, s.publisher, 'example.com/Hub/demo', 'v1.2.0'),
      [409, 409, 409],
      'not before an administrator claims the module the upstream has (decision 0043)',
    );
    await s.hub.services.local.claim('go', 'example.com/Hub/demo', 'admin');
    t.same(await publish(s.base, s.publisher, 'example.com/Hub/demo', 'v1.2.0'), [201, 201, 201]);
    await s.hub.db('local_packages').update({ local_only: false });
    const list = await rawRequest(`${s.base}/example.com/!hub/demo/@v/list`);
    t.same(list.body.toString().trim().split('\n').sort(), ['v1.0.0', 'v1.1.0', 'v1.2.0'], 'merged');
    t.equal(
      (await rawRequest(`${s.base}/example.com/!hub/demo/@latest`)).json().Version,
      'v1.2.0',
      'the highest of both',
    );
    const zip = await rawRequest(`${s.base}/example.com/!hub/demo/@v/v1.2.0.zip`);
    t.same(zip.body, moduleFiles('example.com/Hub/demo', 'v1.2.0').zip, 'the local zip');
    t.equal(
      s.upstream.count((r) => r.url.endsWith('v1.2.0.zip')),
      0,
    );
    t.equal(
      (await rawRequest(`${s.base}/example.com/!hub/demo/@v/v1.0.0.info`)).json().Version,
      'v1.0.0',
      'an upstream version still comes from the upstream',
    );
  },
);
