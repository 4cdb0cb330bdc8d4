import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { setup, type CargoSetup } from '../setup.js';
import { cargo, cargoEnv, noCargo, run } from '../cargo-env.js';
import { missingClient } from '@hub/testkit';

interface Logged {
  method: string;
  url: string;
  auth: string | undefined;
  status: number;
}

/**
 * hub's own request handler behind a logging server, so every request cargo makes is recorded. The front
 * listens first: the hub behind it is configured with its address as public_url, as an integrator
 * embedding hub.callback would do.
 */
async function loggingFront(t: Test): Promise<{ url: string; log: Logged[]; setup(): Promise<CargoSetup> }> {
  const log: Logged[] = [];
  let hub: CargoSetup | undefined;
  const server = http.createServer((req, res) => {
    const entry: Logged = { method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization, status: 0 };
    log.push(entry);
    res.on('finish', () => (entry.status = res.statusCode));
    hub!.hub.callback(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, log, setup: async () => (hub = await setup(t, { config: { server: { public_url: url } } })) };
}

type Wiring = 'source-replacement' | 'named-registry';

/** A throwaway project and CARGO_HOME; nothing is read from or written to the machine's ~/.cargo. */
function project(t: Test, hubUrl: string, token: string, wiring: Wiring) {
  // Its own temp folder: t.testdir() is the hub's, and cargo reads .cargo/config.toml from every parent folder.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-cargo-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const sub of ['home', 'cargo-home', 'app/src']) fs.mkdirSync(path.join(dir, sub), { recursive: true });
  const index = `sparse+${hubUrl}/proxy/crates/registry/`;
  fs.writeFileSync(
    path.join(dir, 'cargo-home', 'config.toml'),
    [
      '[registries.hub]',
      `index = "${index}"`,
      '',
      '[registry]',
      'global-credential-providers = ["cargo:token"]',
      '',
      ...(wiring === 'source-replacement' ? ['[source.crates-io]', 'replace-with = "hub"', ''] : []),
      '[net]',
      'retry = 0',
      '',
    ].join('\n'),
  );
  const dep = wiring === 'source-replacement' ? '"1.1"' : '{ version = "1.1", registry = "hub" }';
  fs.writeFileSync(
    path.join(dir, 'app', 'Cargo.toml'),
    `[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nform_urlencoded = ${dep}\n`,
  );
  fs.writeFileSync(
    path.join(dir, 'app', 'src', 'main.rs'),
    'fn main() {\n    let q: String = form_urlencoded::Serializer::new(String::new()).append_pair("crate", "hub & cargo").finish();\n    println!("{q}");\n}\n',
  );
  const env = cargoEnv({
    home: path.join(dir, 'home'),
    cargoHome: path.join(dir, 'cargo-home'),
    token,
    targetDir: path.join(dir, 'target'),
  });
  const cmd = (...args: string[]) => run(cargo!, args, { cwd: path.join(dir, 'app'), env, timeout: 300_000 });
  return { dir, cmd, lockfile: path.join(dir, 'app', 'Cargo.lock') };
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: { stderr?: string }) => e.stderr ?? String(e),
  );

const summary = (log: Logged[]) =>
  log.map((r) => `${r.method} ${r.url} ${r.status}${r.auth ? ' (token)' : ''}`).join('\n');

for (const wiring of ['source-replacement', 'named-registry'] as const) {
  t.test(
    `real cargo (${wiring}): cargo run resolves form_urlencoded and its dependency through hub`,
    { skip: noCargo },
    async (t) => {
      const front = await loggingFront(t);
      const s = await front.setup();
      const token = await s.token('ci', { roles: ['reader'] });
      const p = project(t, front.url, token, wiring);

      const { stdout } = await p.cmd('run', '--quiet');
      t.equal(stdout.trim(), 'crate=hub+%26+cargo', 'the program built from the crates hub served runs');
      t.comment(`${wiring}: ${front.log.length} requests through hub\n${summary(front.log)}`);

      const lock = fs.readFileSync(p.lockfile, 'utf8');
      t.match(lock, /name = "form_urlencoded"\nversion = "1\.1\.0"/);
      t.match(lock, /name = "percent-encoding"\nversion = "2\.2\.0"/, 'the transitive dependency');

      const config = front.log.filter((r) => r.url === '/proxy/crates/registry/config.json');
      t.ok(config.length >= 1, 'cargo fetched config.json');
      t.equal(config[0]!.auth, undefined, 'the first config.json request carries no token');
      t.equal(config[0]!.status, 200, 'and is answered without one');
      const rest = front.log.filter((r) => r.url !== '/proxy/crates/registry/config.json');
      t.ok(rest.length > 0);
      t.ok(
        rest.every((r) => r.auth === token),
        'the raw token (no scheme) on every index and download request',
      );
      for (const url of [
        '/proxy/crates/registry/fo/rm/form_urlencoded',
        '/proxy/crates/registry/pe/rc/percent-encoding',
        '/proxy/crates/api/v1/crates/form_urlencoded/1.1.0/download',
        '/proxy/crates/api/v1/crates/percent-encoding/2.2.0/download',
      ])
        t.ok(
          front.log.some((r) => r.url === url && r.status === 200),
          `${url} answered 200`,
        );
      t.equal(s.upstream.count('/crates/'), 2, 'two .crate files fetched from the upstream, once each');
      t.equal(
        s.upstream.count((r) => Boolean(r.headers.authorization)),
        0,
        "cargo's token never reaches the upstream",
      );

      // A second project with its own CARGO_HOME: everything comes from hub's cache.
      const before = s.upstream.count();
      const again = project(t, front.url, token, wiring);
      await again.cmd('fetch');
      t.equal(s.upstream.count('/crates/'), 2, 'no new upstream download');
      t.ok(s.upstream.count() - before <= 2, 'at most index revalidations upstream');
    },
  );
}

t.test('real cargo: a wrong token is refused', { skip: cargo ? false : missingClient('cargo >= 1.74') }, async (t) => {
  const front = await loggingFront(t);
  const s = await front.setup();
  const p = project(t, front.url, 'hub_not_a_real_token', 'source-replacement');
  const err = await failure(p.cmd('fetch'));
  t.ok(err, 'cargo fetch fails');
  t.match(err ?? '', /401/, 'cargo reports the 401');
  t.comment(`wrong token: ${front.log.length} requests through hub\n${summary(front.log)}`);
  t.ok(
    front.log.some((r) => r.status === 401 && r.auth === 'hub_not_a_real_token'),
    'hub refused the token cargo sent',
  );
  t.equal(s.upstream.count('/crates/'), 0, 'nothing downloaded');
});

t.test(
  'real cargo: an unlisted version is yanked for new resolutions but a Cargo.lock that pins it still builds',
  { skip: cargo ? false : missingClient('cargo >= 1.74') },
  async (t) => {
    const front = await loggingFront(t);
    const s = await front.setup();
    const token = await s.token('ci', { roles: ['reader'] });
    const first = project(t, front.url, token, 'source-replacement');
    await first.cmd('fetch');
    const lock = fs.readFileSync(first.lockfile, 'utf8');

    await s.hub.services.unlisting.add(
      { registry: 'crates', package_name: 'percent-encoding', version: '2.2.0' },
      'admin',
    );

    const fresh = project(t, front.url, token, 'source-replacement');
    const err = await failure(fresh.cmd('generate-lockfile'));
    t.match(err ?? '', /percent-encoding/, 'no unyanked percent-encoding left to choose');
    t.comment(err?.split('\n').slice(0, 4).join('\n') ?? '');

    const pinned = project(t, front.url, token, 'source-replacement');
    fs.writeFileSync(pinned.lockfile, lock);
    const downloads = () =>
      front.log.filter(
        (r) => r.url === '/proxy/crates/api/v1/crates/percent-encoding/2.2.0/download' && r.status === 200,
      ).length;
    const before = downloads();
    await pinned.cmd('fetch', '--locked');
    t.equal(downloads(), before + 1, 'cargo fetch --locked with the unlisted version pinned downloads it through hub');
  },
);
