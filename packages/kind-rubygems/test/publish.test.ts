/**
 * Issue 13: publishing gems with `gem push` and `gem yank` to local and hybrid registries, installing
 * them back through hub with `gem install` and `bundle install`, and the refusals every publishing
 * kind shares. The real-client tests skip, saying so, where ruby is not installed.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { startFixtureUpstream, startTestHub, missingClient } from '@hub/testkit';
import rubygems from '../src/index.js';
import { decode, type MValue } from '../src/marshal.js';
import { parsePlatform } from '../src/quick-spec.js';
import { gemBuild, makeGem, tar } from './gem-build.js';
import { sandbox } from './ruby-clients.js';
import { FIXTURES } from './setup.js';
import publishing from '@hub/publishing';

const run = promisify(execFile);
const have = (cmd: string) => {
  try {
    execFileSync(cmd, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const noGem = have('gem') ? false : missingClient('gem', 'apt-get install ruby');
const noBundle = noGem || (have('bundle') ? false : missingClient('bundle', 'apt-get install ruby-bundler'));

async function start(t: Test, registry: Record<string, unknown>, config?: Record<string, Record<string, unknown>>) {
  const upstream = await startFixtureUpstream({ root: `${FIXTURES}upstream` });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [rubygems, publishing],
    registries: [
      { name: 'gems', type: 'rubygems', ...(registry.mode === 'local' ? {} : { upstream: upstream.url }), ...registry },
    ],
    config,
  });
  t.teardown(() => hub.close());
  const publisher = await hub.token('ci', { roles: ['publisher'] });
  const reader = await hub.token('dev', { roles: ['reader'] });
  return { hub: hub.hub, url: hub.url, upstream, publisher, reader, base: `${hub.url}/proxy/gems` };
}
type Started = Awaited<ReturnType<typeof start>>;

const pushRaw = (s: Started, body: Buffer, token?: string) =>
  fetch(`${s.base}/api/v1/gems`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/octet-stream', ...(token ? { authorization: token } : {}) },
  }).then(async (r) => ({
    status: r.status,
    text: await r.text(),
  }));
const yankRaw = (s: Started, form: Record<string, string>, token: string) =>
  fetch(`${s.base}/api/v1/gems/yank`, {
    method: 'DELETE',
    body: new URLSearchParams(form),
    headers: { authorization: token },
  }).then(async (r) => ({ status: r.status, text: await r.text() }));
const read = (s: Started, p: string, token = s.reader) =>
  fetch(`${s.base}/${p}`, { headers: { authorization: `Bearer ${token}` } });
const errorCode = (text: string) => (JSON.parse(text) as { error?: { code?: string } }).error?.code;

/** `gem push` as a CI job runs it: the key in GEM_HOST_API_KEY, hub's registry as --host. */
const gemPush = (s: Started, env: NodeJS.ProcessEnv, file: string, key = s.publisher) =>
  run('gem', ['push', file, '--host', s.base], { env: { ...env, GEM_HOST_API_KEY: key }, timeout: 120_000 }).then(
    (r) => ({ ok: true, out: r.stdout + r.stderr }),
    (e: { stdout?: string; stderr?: string }) => ({ ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
  );
const gemInstall = (s: Started, env: NodeJS.ProcessEnv, dir: string, args: string[]) =>
  run(
    'gem',
    [
      'install',
      ...args,
      '--clear-sources',
      '--source',
      `${s.base.replace('http://', `http://dev:${s.reader}@`)}/`,
      '--install-dir',
      dir,
      '--no-document',
    ],
    { env, timeout: 120_000 },
  ).then(
    (r) => ({ ok: true, out: r.stdout + r.stderr }),
    (e: { stdout?: string; stderr?: string }) => ({ ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
  );

t.test(
  'gem push to a local registry, gem install back through hub, duplicate 409, gem yank, re-push 409; bundle install',
  { skip: noGem },
  async (t) => {
    const s = await start(t, { mode: 'local' });
    const { dir, env } = sandbox(t);
    const lib = gemBuild(dir, env, { name: 'hubpub', version: '1.0.0' });
    // A platform gem (this machine's platform) too: its generated gemspec carries a Gem::Platform.
    const native = gemBuild(dir, env, { name: 'hubnative', version: '2.0.0', localPlatform: true });
    const app = gemBuild(dir, env, {
      name: 'hubapp',
      version: '0.3.0',
      deps: [
        ['hubpub', '~> 1.0'],
        ['hubnative', '>= 2'],
      ],
    });

    const pushed = await gemPush(s, env, lib);
    t.ok(pushed.ok, pushed.out);
    t.match(pushed.out, /Successfully registered gem: hubpub \(1\.0\.0\)/);
    t.ok((await gemPush(s, env, native)).ok, 'a platform gem');
    t.ok((await gemPush(s, env, app)).ok, 'a gem that depends on both');

    const installDir = path.join(dir, 'installed');
    const installed = await gemInstall(s, env, installDir, ['hubapp']);
    t.ok(installed.ok, installed.out);
    t.match(installed.out, /Successfully installed hubapp-0\.3\.0/);
    t.ok(
      fs.existsSync(path.join(installDir, 'gems', 'hubpub-1.0.0', 'lib', 'hubpub.rb')),
      'its dependency, published here too, was installed',
    );
    t.match(installed.out, /Successfully installed hubnative-2\.0\.0-/, 'and the platform gem');
    t.equal(s.upstream.requests.length, 0, 'a local registry asks no upstream');

    const again = await gemPush(s, env, lib);
    t.notOk(again.ok, 'gem push of the same version fails');
    t.match(again.out, /already published/);

    if (!noBundle) {
      fs.writeFileSync(path.join(dir, 'app', 'Gemfile'), `source "${s.base}/"\n\ngem "hubapp"\n`);
      const b = await run('bundle', ['install'], {
        cwd: path.join(dir, 'app'),
        env: { ...env, BUNDLE_127__0__0__1: `dev:${s.reader}` },
        timeout: 180_000,
      });
      t.match(b.stdout, /Installing hubpub 1\.0\.0/, 'bundler resolves from the generated /versions and /info');
      t.match(b.stdout, /Installing hubapp 0\.3\.0/);
      t.match(b.stdout, /Installing hubnative 2\.0\.0 \(/, 'the platform build');
    } else t.comment(noBundle);

    const yanked = await run('gem', ['yank', 'hubpub', '-v', '1.0.0', '--host', s.base], {
      env: { ...env, GEM_HOST_API_KEY: s.publisher },
      timeout: 120_000,
    });
    t.match(yanked.stdout, /Successfully deleted gem: hubpub \(1\.0\.0\)/);
    const after = await gemInstall(s, env, path.join(dir, 'after-yank'), ['hubpub', '-v', '1.0.0']);
    t.notOk(after.ok, 'a yanked version cannot be installed');
    t.equal((await read(s, 'gems/hubpub-1.0.0.gem')).status, 404, 'its file is gone');
    t.equal((await read(s, 'info/hubpub')).status, 404, 'and it leaves the index');
    const repush = await gemPush(s, env, lib);
    t.notOk(repush.ok, 'a yanked version number is never pushed again');
    t.match(repush.out, /was deleted/);

    await s.hub.audit.flush();
    const rows = await s.hub
      .db('access_events')
      .whereIn('action', ['publish', 'yank'])
      .orderBy('id')
      .select('action', 'user_id', 'package', 'version');
    t.same(rows, [
      { action: 'publish', user_id: 'ci', package: 'hubpub', version: '1.0.0' },
      {
        action: 'publish',
        user_id: 'ci',
        package: 'hubnative',
        version: `2.0.0-${path.basename(native, '.gem').slice('hubnative-2.0.0-'.length)}`,
      },
      { action: 'publish', user_id: 'ci', package: 'hubapp', version: '0.3.0' },
      { action: 'yank', user_id: 'ci', package: 'hubpub', version: '1.0.0' },
    ]);
    t.equal(
      (await s.hub.db('events').where({ type: 'package_published' })).length,
      3,
      'a package_published event per push',
    );
  },
);

t.test(
  'hybrid: a gem published here hides the upstream gem of the same name; other gems still come from the upstream',
  { skip: noGem },
  async (t) => {
    const s = await start(t, { mode: 'hybrid' });
    // The upstream has the name: an administrator claims it for the registry first (decision 0043).
    await s.hub.services.local.claim('gems', 'hubdemo', 'admin');
    const { dir, env } = sandbox(t);
    // The upstream has hubdemo 1.0.0 and 1.1.0 (depending on hubdep): an internal hubdemo 0.9.0 is pushed here.
    const mine = gemBuild(dir, env, {
      name: 'hubdemo',
      version: '0.9.0',
      deps: [['hubdep', '>= 1.0']],
      marker: 'internal',
    });
    t.ok((await gemPush(s, env, mine)).ok);

    const installDir = path.join(dir, 'installed');
    const installed = await gemInstall(s, env, installDir, ['hubdemo']);
    t.ok(installed.ok, installed.out);
    t.match(
      installed.out,
      /Successfully installed hubdemo-0\.9\.0/,
      'the local gem, though the upstream has a higher version',
    );
    t.match(fs.readFileSync(path.join(installDir, 'gems', 'hubdemo-0.9.0', 'lib', 'hubdemo.rb'), 'utf8'), /internal/);
    t.ok(fs.existsSync(path.join(installDir, 'gems', 'hubdep-1.0.0')), 'its dependency came from the upstream');
    t.equal(
      s.upstream.count((r) => (r.url ?? '').includes('hubdemo')),
      0,
      'the upstream was never asked about hubdemo',
    );

    const info = await (await read(s, 'info/hubdemo')).text();
    t.match(info, /^0\.9\.0 hubdep:>= 1\.0\|checksum:[0-9a-f]{64},ruby:>= 0$/m);
    t.notMatch(info, /1\.1\.0/, 'no upstream version of the name');
    const versions = await (await read(s, 'versions')).text();
    t.match(versions, /^hubdep 1\.0\.0 /m, 'upstream gems stay listed');
    t.equal(versions.match(/^hubdemo /gm)?.length, 1, 'hubdemo: only the local line');
    t.match(versions, /^hubdemo 0\.9\.0 [0-9a-f]{32}$/m);

    if (!noBundle) {
      fs.writeFileSync(path.join(dir, 'app', 'Gemfile'), `source "${s.base}/"\n\ngem "hubdemo"\n`);
      const b = await run('bundle', ['install'], {
        cwd: path.join(dir, 'app'),
        env: { ...env, BUNDLE_127__0__0__1: `dev:${s.reader}` },
        timeout: 180_000,
      });
      t.match(b.stdout, /Installing hubdemo 0\.9\.0/, 'bundler too');
      t.match(b.stdout, /Installing hubdep 1\.0\.0/);
    } else t.comment(noBundle);
  },
);

t.test(
  'hybrid without ownership: local and upstream versions merge, a local version winning over the same upstream number',
  async (t) => {
    const s = await start(t, { mode: 'hybrid' });
    const unclaimed = await pushRaw(s, makeGem({ name: 'hubdep', version: '1.0.0' }), s.publisher);
    t.equal(unclaimed.status, 409, 'not before an administrator claims the name the upstream has (decision 0043)');
    await s.hub.services.local.claim('gems', 'hubdep', 'admin');
    t.equal(
      (await pushRaw(s, makeGem({ name: 'hubdep', version: '1.0.0' }), s.publisher)).status,
      200,
      'the same number as the upstream',
    );
    t.equal((await pushRaw(s, makeGem({ name: 'hubdep', version: '1.5.0' }), s.publisher)).status, 200);
    await s.hub.db('local_packages').where({ name: 'hubdep' }).update({ local_only: false });
    const info = await (await read(s, 'info/hubdep')).text();
    const lines = info.split('\n').filter((l) => /^\d/.test(l));
    t.same(
      lines.map((l) => l.split(' ')[0]),
      ['1.0.0', '1.5.0'],
      'one line per version',
    );
    const upstreamSha = fs
      .readFileSync(`${FIXTURES}upstream/info/hubdep`, 'utf8')
      .match(/checksum:([0-9a-f]{64})/)![1]!;
    t.notMatch(info, upstreamSha, "the upstream's 1.0.0 line gave way to the local one");
    const local = await read(s, 'gems/hubdep-1.0.0.gem');
    t.same(
      Buffer.from(await local.arrayBuffer()),
      makeGem({ name: 'hubdep', version: '1.0.0' }),
      'the local .gem is served',
    );
    t.equal(s.upstream.count('/gems/hubdep-1.0.0.gem'), 0);
  },
);

t.test(
  'the refusals: proxy registry, no token, reader, not a gem, bad names and versions, checksums, size, duplicate, tombstone',
  async (t) => {
    const s = await start(t, { mode: 'local', max_publish_bytes: 20_000 });
    const good = makeGem({ name: 'hubok', version: '1.0.0' });

    const noToken = await pushRaw(s, good);
    t.equal(noToken.status, 401, 'no token');
    const reader = await pushRaw(s, good, s.reader);
    t.equal(reader.status, 403, 'a reader may not push');
    t.equal(errorCode(reader.text), 'forbidden');

    for (const [what, body, pattern] of [
      ['random bytes', Buffer.from('not a gem at all'.repeat(40)), /not a valid gem/],
      ['a tar without metadata.gz', tar({ 'data.tar.gz': zlib.gzipSync('x') }), /metadata\.gz/],
      ['a name that leaves its place', makeGem({ name: '../../etc', version: '1.0.0' }), /not a valid gem name/],
      ['an encoded traversal name', makeGem({ name: '%2e%2e%2fx', version: '1.0.0' }), /not a valid gem name/],
      ['a malformed version', makeGem({ name: 'hubok', version: '1.0/../../x' }), /not a valid gem version/],
      [
        'a malformed platform',
        makeGem({ name: 'hubok', version: '1.0.0', platform: 'x86/../../y' }),
        /not a valid gem platform/,
      ],
      [
        'a dependency name that would break the index',
        makeGem({ name: 'hubok', version: '1.0.0', deps: [['a:b|c', '>=', '1']] }),
        /dependency/,
      ],
      [
        'checksums.yaml that disagrees with the data',
        makeGem({ name: 'hubok', version: '1.0.0', checksums: 'bad' }),
        /checksums\.yaml\.gz says data\.tar\.gz/,
      ],
    ] as const) {
      const r = await pushRaw(s, body, s.publisher);
      t.equal(r.status, 400, what);
      t.match(r.text, pattern, what);
    }
    const big = await pushRaw(s, Buffer.alloc(30_000), s.publisher);
    t.equal(big.status, 413, 'max_publish_bytes');
    t.equal(errorCode(big.text), 'payload_too_large');
    t.same(await s.hub.db('artifacts').select('cache_key'), [], 'no refused push stored anything');

    const ok = await pushRaw(s, good, `Bearer ${s.publisher}`);
    t.equal(ok.status, 200, `the publisher role pushes (${ok.text})`);
    const dup = await pushRaw(s, good, s.publisher);
    t.equal(dup.status, 409, 'duplicate version');
    t.equal(errorCode(dup.text), 'conflict');

    t.equal((await yankRaw(s, { gem_name: 'hubok', version: '1.0.0' }, s.reader)).status, 403, 'a reader may not yank');
    t.equal(
      (await yankRaw(s, { gem_name: 'hubok', version: '9.9.9' }, s.publisher)).status,
      404,
      'yank of a version never published',
    );
    t.equal((await yankRaw(s, { gem_name: '../x', version: '1.0.0' }, s.publisher)).status, 400);
    t.equal((await yankRaw(s, { gem_name: 'hubok', version: '1.0.0' }, s.publisher)).status, 200);
    const tomb = await pushRaw(s, good, s.publisher);
    t.equal(tomb.status, 409, 're-push of a yanked version: 409 forever');
    t.match(tomb.text, /was deleted/);
    t.equal(
      (await pushRaw(s, makeGem({ name: 'hubok', version: '1.0.1' }), s.publisher)).status,
      200,
      'the name itself may be pushed again',
    );

    const proxy = await start(t, { mode: 'proxy' });
    const refused = await pushRaw(proxy, good, proxy.publisher);
    t.equal(refused.status, 405, 'a proxy registry takes no push');
    t.equal(errorCode(refused.text), 'method_not_allowed');
    t.equal((await yankRaw(proxy, { gem_name: 'hubok', version: '1.0.0' }, proxy.publisher)).status, 405, 'nor a yank');
  },
);

t.test('a package-scoped policy and a block apply to the name read from the pushed .gem', async (t) => {
  const s = await start(
    t,
    { mode: 'local' },
    {
      auth: {
        policies: [{ effect: 'deny', permissions: ['source:write'], roles: ['publisher'], packages: ['internal-*'] }],
      },
    },
  );
  const denied = await pushRaw(s, makeGem({ name: 'internal-secrets', version: '1.0.0' }), s.publisher);
  t.equal(denied.status, 403, 'the policy names the package only the .gem body carries');
  t.equal(errorCode(denied.text), 'forbidden');
  t.equal(
    (await pushRaw(s, makeGem({ name: 'public-tool', version: '1.0.0' }), s.publisher)).status,
    200,
    'other names still publish',
  );
  await s.hub.services.blocks.add({
    registry: 'gems',
    package_name: 'public-tool',
    version: null,
    reason: 'compromised',
    by: 'secteam',
  });
  const blocked = await pushRaw(s, makeGem({ name: 'public-tool', version: '1.0.1' }), s.publisher);
  t.equal(blocked.status, 403, 'a blocked package takes no new versions');
  t.equal(errorCode(blocked.text), 'package_blocked');
  t.same(
    await s.hub.db('artifacts').pluck('cache_key'),
    ['gems/public-tool/public-tool-1.0.0.gem'],
    'the refused pushes stored nothing',
  );
});

t.test('a local registry generates every index document from the database', async (t) => {
  const s = await start(t, { mode: 'local' });
  t.equal((await pushRaw(s, makeGem({ name: 'hublib', version: '1.0.0' }), s.publisher)).status, 200);
  t.equal(
    (await pushRaw(s, makeGem({ name: 'hublib', version: '1.1.0.rc1', deps: [['hubdep', '~>', '1.0']] }), s.publisher))
      .status,
    200,
  );
  t.equal(
    (await pushRaw(s, makeGem({ name: 'hublib', version: '1.0.0', platform: 'x86_64-linux' }), s.publisher)).status,
    200,
    'a platform build of the same version',
  );

  const info = await (await read(s, 'info/hublib')).text();
  t.match(
    info,
    /^---\n1\.0\.0 \|checksum:[0-9a-f]{64},ruby:>= 2\.5\n1\.1\.0\.rc1 hubdep:~> 1\.0\|checksum:[0-9a-f]{64},ruby:>= 2\.5\n1\.0\.0-x86_64-linux \|/,
  );
  const versions = await (await read(s, 'versions')).text();
  t.match(versions, /^hublib 1\.0\.0,1\.1\.0\.rc1,1\.0\.0-x86_64-linux ([0-9a-f]{32})$/m);
  t.equal(
    versions.match(/ ([0-9a-f]{32})$/m)?.[1],
    (await read(s, 'info/hublib')).headers.get('etag')?.replace(/"/g, ''),
    'the line carries the md5 of the info hub serves',
  );
  t.match(await (await read(s, 'names')).text(), /^hublib$/m);

  const items = async (f: string) =>
    (decode(zlib.gunzipSync(Buffer.from(await (await read(s, f)).arrayBuffer()))) as { items: MValue[] }).items;
  t.equal((await items('specs.4.8.gz')).length, 2, 'specs: the two releases');
  t.equal((await items('prerelease_specs.4.8.gz')).length, 1, 'prerelease_specs: the rc');
  t.equal((await items('latest_specs.4.8.gz')).length, 2, 'latest_specs: one per platform');

  const rz = await read(s, 'quick/Marshal.4.8/hublib-1.1.0.rc1.gemspec.rz');
  t.equal(rz.status, 200);
  const spec = decode(zlib.inflateSync(Buffer.from(await rz.arrayBuffer())));
  t.match(spec, { t: 'userDef' }, 'a Marshal Gem::Specification');

  const api = (await (await read(s, 'api/v1/gems/hublib.json')).json()) as Record<string, unknown>;
  t.match(
    api,
    { name: 'hublib', version: '1.0.0', gem_uri: `${s.base}/gems/hublib-1.0.0.gem` },
    'the gem API describes the highest release',
  );

  await s.hub.services.unlisting.add({ registry: 'gems', package_name: 'hublib', version: '1.1.0.rc1' }, 'admin');
  t.notMatch(await (await read(s, 'info/hublib')).text(), /rc1/, 'unlisting applies to published gems');
  t.equal((await read(s, 'gems/hublib-1.1.0.rc1.gem')).status, 200, 'and leaves them downloadable');
  t.equal((await read(s, 'info/nothere')).status, 404);
  t.equal(s.upstream.requests.length, 0);
});

t.test(
  "platform strings parse as RubyGems 3.3's Gem::Platform.new does (the generated gemspec's platform object)",
  async (t) => {
    // Expected values printed by ruby 3.1 / RubyGems 3.3.15: Gem::Platform.new(s) => [cpu, os, version].
    const cases: [string, [string | null, string, string | null]][] = [
      ['x86_64-linux', ['x86_64', 'linux', null]],
      ['x86_64-darwin-19', ['x86_64', 'darwin', '19']],
      ['arm64-darwin', ['arm64', 'darwin', null]],
      ['universal-darwin-22', ['universal', 'darwin', '22']],
      ['java', [null, 'java', null]],
      ['x86-mingw32', ['x86', 'mingw32', null]],
      ['x64-mingw-ucrt', ['x64', 'mingw', 'ucrt']],
      ['x86_64-linux-musl', ['x86_64', 'linux', 'musl']],
      ['i386-mswin32', ['x86', 'mswin32', null]],
      ['x86-mswin32_60', ['x86', 'mswin32', '60']],
      ['aarch64-linux-gnu', ['aarch64', 'linux', null]],
      ['x86_64-freebsd-13', ['x86_64', 'freebsd', '13']],
      ['sparc-solaris2.10', ['sparc', 'solaris', '2.10']],
      ['powerpc-aix5.3', ['powerpc', 'aix', '5']],
      ['weird', [null, 'unknown', null]],
    ];
    for (const [text, expected] of cases) t.same(parsePlatform(text), expected, text);
  },
);
