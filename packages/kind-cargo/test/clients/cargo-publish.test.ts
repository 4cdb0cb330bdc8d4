import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { startFixtureUpstream, startTestHub } from '@hub/testkit';
import cargoKind from '../../src/index.js';
import { FIXTURES } from '../setup.js';
import publishing from '@hub/publishing';
import { cargo, cargoEnv, noCargo, run } from '../cargo-env.js';

/**
 * Issue 13 with the real cargo: `cargo publish` to a local registry and a build that uses the crate, `cargo yank`
 * and `--undo` seen by fresh resolutions, refusals as cargo prints them, and a hybrid registry whose upstream has
 * a crate of the same name.
 */
const skip = noCargo;

async function start(t: Test, mode: 'local' | 'hybrid' | 'proxy') {
  const upstream = await startFixtureUpstream({ root: FIXTURES });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [cargoKind, publishing],
    registries: [
      { name: 'crates', type: 'cargo', mode, ...(mode === 'local' ? {} : { upstream: `${upstream.url}/index` }) },
    ],
  });
  t.teardown(() => hub.close());
  return {
    hub,
    upstream,
    publisher: await hub.token('ci', { roles: ['publisher'] }),
    reader: await hub.token('dev', { roles: ['reader'] }),
    base: `${hub.url}/proxy/crates`,
  };
}

/**
 * A throwaway folder (outside t.testdir(): cargo reads .cargo/config.toml from every parent folder) with its own
 * CARGO_HOME naming hub's index as registry `hub`. `crate()` writes a package into it and returns cargo run there.
 */
function workspace(t: Test, base: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-cargo-publish-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'home'));
  let homes = 0;
  return {
    /** A package folder; every call gets a fresh CARGO_HOME, so nothing is remembered between resolutions. */
    crate(folder: string, manifest: string, files: Record<string, string>, token: string) {
      const home = path.join(dir, `cargo-home-${++homes}`);
      fs.mkdirSync(home, { recursive: true });
      fs.writeFileSync(
        path.join(home, 'config.toml'),
        `[registries.hub]\nindex = "sparse+${base}/registry/"\n\n[registry]\nglobal-credential-providers = ["cargo:token"]\n\n[net]\nretry = 0\n`,
      );
      const root = path.join(dir, folder);
      fs.rmSync(root, { recursive: true, force: true });
      fs.mkdirSync(path.join(root, 'src'), { recursive: true });
      fs.writeFileSync(path.join(root, 'Cargo.toml'), manifest);
      for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(root, f), text);
      const env = cargoEnv({
        home: path.join(dir, 'home'),
        cargoHome: home,
        token,
        targetDir: path.join(dir, 'target', folder),
      });
      return (...args: string[]) => run(cargo!, args, { cwd: root, env, timeout: 300_000 });
    },
  };
}

const lib = (name: string, version: string, body: string) => ({
  manifest: `[package]\nname = "${name}"\nversion = "${version}"\nedition = "2021"\ndescription = "a crate published to hub"\nlicense = "MIT"\n`,
  files: { 'src/lib.rs': body },
});
const app = (deps: string, main: string) => ({
  manifest: `[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\npublish = false\n\n[dependencies]\n${deps}\n`,
  files: { 'src/main.rs': main },
});
const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: { stderr?: string }) => e.stderr ?? String(e),
  );

t.test(
  'real cargo, local registry: publish, build against it, yank and --undo, refusals as cargo prints them',
  { skip },
  async (t) => {
    const s = await start(t, 'local');
    const w = workspace(t, s.base);
    const greet = (v: string) =>
      lib('hub-greet', v, `pub fn greet() -> &'static str { "hello from hub-greet ${v}" }\n`);
    const publish = (v: string, token = s.publisher, ...flags: string[]) => {
      const c = greet(v);
      return w.crate('greet', c.manifest, c.files, token)('publish', '--registry', 'hub', ...flags);
    };

    const denied = await failure(publish('0.1.0', s.reader, '--no-verify'));
    t.match(denied, /403/, 'a reader token: cargo prints the 403');
    t.comment(denied?.split('\n').slice(-4).join('\n') ?? '');

    for (const v of ['0.1.0', '0.1.1']) {
      const { stderr } = await publish(v);
      t.match(stderr, new RegExp(`Published hub-greet v${v.replaceAll('.', '\\.')}`), `cargo publish ${v}`);
    }

    const user = app(
      'hub-greet = { version = "0.1", registry = "hub" }',
      'fn main() { println!("{}", hub_greet::greet()); }\n',
    );
    const build = () => w.crate('app', user.manifest, user.files, s.reader)('run', '--quiet');
    t.equal(
      (await build()).stdout.trim(),
      'hello from hub-greet 0.1.1',
      'a crate depending on it builds and runs with the newest version',
    );

    const greetDir = w.crate('yank', '[workspace]\n', {}, s.publisher);
    await greetDir('yank', '--registry', 'hub', '--version', '0.1.1', 'hub-greet');
    t.equal(
      (await build()).stdout.trim(),
      'hello from hub-greet 0.1.0',
      'after cargo yank a fresh resolution skips 0.1.1',
    );
    await greetDir('yank', '--registry', 'hub', '--version', '0.1.1', '--undo', 'hub-greet');
    t.equal(
      (await build()).stdout.trim(),
      'hello from hub-greet 0.1.1',
      'after cargo yank --undo it takes 0.1.1 again',
    );

    const dup = await failure(publish('0.1.1'));
    t.match(dup, /already exists|409/, 'a second publish of 0.1.1 fails');
    t.comment(dup?.split('\n').slice(-4).join('\n') ?? '');

    const del = await fetch(`${s.base}/api/v1/crates/hub-greet/0.1.1`, {
      method: 'DELETE',
      headers: { authorization: s.publisher },
    });
    t.equal(del.status, 200, 'the version is deleted (curl; cargo has no command for it)');
    const tomb = await failure(publish('0.1.1'));
    t.match(tomb, /409/, 'cargo prints the status');
    t.match(tomb, /hub-greet 0\.1\.1 was deleted; its version number cannot be published again/, "and hub's message");
    t.comment(tomb ?? '');
    t.equal(
      (await build()).stdout.trim(),
      'hello from hub-greet 0.1.0',
      'the deleted version is gone from resolutions',
    );

    await s.hub.hub.audit.flush();
    const actions = await s.hub.hub
      .db('access_events')
      .whereIn('action', ['publish', 'yank', 'unyank', 'unpublish'])
      .orderBy('id')
      .select('action', 'version', 'user_id');
    t.same(
      actions.map((r: Record<string, unknown>) => `${r.action} ${r.version} ${r.user_id}`),
      ['publish 0.1.0 ci', 'publish 0.1.1 ci', 'yank 0.1.1 ci', 'unyank 0.1.1 ci', 'unpublish 0.1.1 ci'],
    );
  },
);

t.test(
  'real cargo, hybrid registry: a crate published here hides the upstream crate of the same name; other crates still come from the upstream',
  { skip },
  async (t) => {
    const s = await start(t, 'hybrid');
    const w = workspace(t, s.base);
    // The fixture upstream has cfg-if 1.0.0; this one is ours, claimed for the registry by an administrator (decision 0043).
    await s.hub.hub.services.local.claim('crates', 'cfg-if', 'admin');
    const ours = lib('cfg-if', '2.0.0', 'pub fn hub_local() -> &\'static str { "the cfg-if published to hub" }\n');
    const { stderr } = await w.crate('cfg-if', ours.manifest, ours.files, s.publisher)('publish', '--registry', 'hub');
    t.match(stderr, /Published cfg-if v2\.0\.0/);
    const asked = s.upstream.count('/index/cf/g-/cfg-if');

    const user = app(
      'cfg-if = { version = "2", registry = "hub" }\nform_urlencoded = { version = "1.1", registry = "hub" }',
      'fn main() {\n    let q: String = form_urlencoded::Serializer::new(String::new()).append_pair("a", "b c").finish();\n    println!("{} {q}", cfg_if::hub_local());\n}\n',
    );
    const { stdout } = await w.crate('app', user.manifest, user.files, s.reader)('run', '--quiet');
    t.equal(
      stdout.trim(),
      'the cfg-if published to hub a=b+c',
      'the local cfg-if and the upstream form_urlencoded, both through hub',
    );

    const confused = app('cfg-if = { version = "1", registry = "hub" }', 'fn main() {}\n');
    const err = await failure(w.crate('confused', confused.manifest, confused.files, s.reader)('generate-lockfile'));
    t.match(
      err,
      /failed to select a version for the requirement `cfg-if = "\^1"`/,
      "the upstream's cfg-if 1.0.0 is not offered once cfg-if is published here",
    );
    t.comment(err ?? '');
    t.equal(
      s.upstream.count('/index/cf/g-/cfg-if'),
      asked,
      'the upstream index of cfg-if was not asked after the publish',
    );
    t.equal(s.upstream.count('/crates/cfg-if/'), 0, "the upstream's cfg-if was never downloaded");
    t.equal(s.upstream.count('/crates/form_urlencoded/'), 1, 'form_urlencoded came from the upstream');
  },
);

t.test('real cargo, proxy registry: cargo does not publish (config.json names no api)', { skip }, async (t) => {
  const s = await start(t, 'proxy');
  const w = workspace(t, s.base);
  const c = lib('hub-greet', '0.1.0', '');
  const err = await failure(
    w.crate('greet', c.manifest, c.files, s.publisher)('publish', '--registry', 'hub', '--no-verify'),
  );
  t.match(err, /does not support API commands/);
  t.comment(err ?? '');
  t.equal(
    s.upstream.count((r) => r.url.includes('hub-greet')),
    0,
  );
});
