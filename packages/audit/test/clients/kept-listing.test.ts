/**
 * Keep what the audit protects (packages/audit/README.md): once the upstream removes a whole package and the audit has it
 * as missing, hub serves the package's last good listing, so the real clients (npm, cargo, bundler) still
 * install the versions hub holds. Each test first shows the listing is gone without the audit, so it can fail.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import admin from '@hub/admin';
import cargo from '@hub/kind-cargo';
import npm from '@hub/kind-npm';
import rubygems from '@hub/kind-rubygems';
import {
  npmFixtureHandler,
  rawRequest,
  startFixtureUpstream,
  startTestHub,
  type FixtureHandler,
  type FixtureUpstream,
  type TestHub,
  missingClient,
} from '@hub/testkit';
import type { AnyPlugin } from '@hub/runtime';
import audit from '../../src/index.js';
import { createKeptListings } from '../../src/kept-listings.js';
import { AUDIT_TEST_CONFIG } from '../setup.js';

const run = promisify(execFile);
const fixtures = (kind: string) =>
  fileURLToPath(new URL(`../../../../kind-${kind}/test/fixtures/upstream/`, import.meta.url));

function which(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): boolean {
  try {
    execFileSync(cmd, args, { stdio: 'ignore', env });
    return true;
  } catch {
    return false;
  }
}
const CARGO = [process.env.HUB_TEST_CARGO, path.join(os.homedir(), '.cargo', 'bin', 'cargo')].find(
  (c) => c && which(c, ['--version'], { ...process.env, RUSTUP_AUTO_INSTALL: '0' }),
);

interface Kept extends TestHub {
  upstream: FixtureUpstream;
  base: string;
  /** The upstream removes the package: its listing and files answer 404. */
  remove(): void;
  /** Which upstream paths answer 404 once removed. */
  gone: (url: string) => boolean;
  restore(): void;
  sweep(): Promise<{ outcome: string; missing: number }>;
}

/**
 * A hub with `kind`, the admin API and the audit, in front of a fixture upstream that can remove one
 * package. The listing is never fresh (metadata_ttl_secs 0) and no 404 is remembered, so every request
 * asks the upstream and the kept copy is what answers.
 */
async function keptSetup(
  t: Test,
  o: {
    kind: AnyPlugin;
    type: string;
    root?: string;
    upstreamPath?: string;
    gone: (url: string) => boolean;
    base?: FixtureHandler;
    config?: Record<string, unknown>;
  },
): Promise<Kept> {
  let removed = false;
  const out = { gone: o.gone } as Kept;
  const upstream = await startFixtureUpstream({
    root: o.root,
    handler: async (req, res, up) => {
      if (removed && out.gone(req.url ?? '')) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return true;
      }
      return o.base ? o.base(req, res, up) : false;
    },
  });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [o.kind, admin, audit],
    registries: [
      {
        name: 'reg',
        type: o.type,
        mode: 'proxy',
        upstream: `${upstream.url}${o.upstreamPath ?? ''}`,
        metadata_ttl_secs: 0,
      },
    ],
    config: {
      auth: { anonymous: ['source:read'] },
      cache: { negative_ttl_secs: 0 },
      upstream_audit: AUDIT_TEST_CONFIG,
      ...o.config,
    },
  });
  t.teardown(() => hub.close());
  Object.assign(out, {
    ...hub,
    upstream,
    base: `${hub.url}/proxy/reg`,
    remove: () => (removed = true),
    restore: () => (removed = false),
    async sweep() {
      const res = await fetch(`${hub.url}/api/v1/admin/upstream/sweep`, {
        method: 'POST',
        headers: { authorization: `Bearer ${hub.adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ registry: 'reg' }),
      });
      const body = (await res.json()) as { sweeps: Array<{ outcome: string; missing: number }> };
      return body.sweeps[0]!;
    },
  });
  return out;
}

const status = async (url: string) => (await rawRequest(url)).status;

/** The audit's side of it: a sweep that finds the package gone keeps it; one that finds it back releases it. */
async function auditKeepsThenReleases(t: Test, s: Kept, name: string) {
  const swept = await s.sweep();
  t.equal(swept.outcome, 'ok', 'the sweep counts (not void)');
  t.equal(swept.missing, 1, 'one package missing');
  t.same(
    (await createKeptListings(s.hub.db).list('reg')).map((k) => [k.package_name, k.kept_by]),
    [[name, 'system:upstream-audit']],
    'the audit keeps its listing',
  );
}

async function releasedWhenBack(t: Test, s: Kept, name: string) {
  s.restore();
  await s.sweep();
  t.same(
    await createKeptListings(s.hub.db).list('reg'),
    [],
    `${name} answers again: the listing is the upstream's again`,
  );
}

t.test(
  'npm: npm install of a held version after the upstream deleted the package',
  { skip: which('npm', ['--version']) ? false : missingClient('npm') },
  async (t) => {
    const s = await keptSetup(t, {
      kind: npm,
      type: 'npm',
      base: npmFixtureHandler(fixtures('npm')),
      config: { upstream_audit: { ...AUDIT_TEST_CONFIG, outage_ratio: 1 } },
      gone: (u) => /^\/hubdep(\/|$)/.test(u),
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-kept-npm-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const install = async (label: string) => {
      const app = path.join(dir, label);
      fs.mkdirSync(app);
      fs.writeFileSync(
        path.join(app, 'package.json'),
        JSON.stringify({ name: 'app', version: '1.0.0', private: true }),
      );
      fs.writeFileSync(path.join(dir, 'npmrc'), `registry=${s.base}/\n`);
      const env = {
        PATH: process.env.PATH,
        HOME: dir,
        npm_config_userconfig: path.join(dir, 'npmrc'),
        npm_config_cache: path.join(dir, `cache-${label}`),
        npm_config_audit: 'false',
        npm_config_fund: 'false',
        npm_config_update_notifier: 'false',
        npm_config_fetch_retries: '0',
      };
      return run('npm', ['install', '--no-save', '--no-package-lock', 'hubdemo@1.1.0'], {
        cwd: app,
        env,
        timeout: 120_000,
      }).then(
        () =>
          JSON.parse(fs.readFileSync(path.join(app, 'node_modules', 'hubdep', 'package.json'), 'utf8'))
            .version as string,
        (e: { stderr: string }) => `failed: ${e.stderr}`,
      );
    };
    t.equal(await install('first'), '1.0.0', 'hubdemo and its dependency hubdep installed through hub');
    await s.hub.artifacts.idle();

    s.remove();
    t.equal(await status(`${s.base}/hubdep`), 404, 'without the audit the listing goes with the upstream');
    t.match(await install('before-audit'), /^failed:/, 'and npm install fails');

    await auditKeepsThenReleases(t, s, 'hubdep');
    const before = s.upstream.count('/hubdep');
    t.equal(await install('kept'), '1.0.0', 'a fresh npm cache installs hubdep 1.0.0 from the kept listing');
    t.ok(s.upstream.count('/hubdep') > before, 'the upstream was asked, and answered 404');
    const packument = await fetch(`${s.base}/hubdemo`, { headers: { accept: 'application/json' } });
    t.equal(packument.status, 200);
    t.same(
      Object.keys(((await packument.json()) as { versions: Record<string, unknown> }).versions).sort(),
      ['1.0.0', '1.1.0'],
      'hubdemo (not removed) lists every upstream version',
    );
    s.gone = (u) => /^\/(hubdep|hubdemo)(\/|$)/.test(u);
    await s.sweep();
    const kept = await fetch(`${s.base}/hubdemo`, { headers: { accept: 'application/json' } });
    t.equal(kept.status, 200, 'hubdemo removed too: its kept packument is served');
    t.same(
      Object.keys(((await kept.json()) as { versions: Record<string, unknown> }).versions),
      ['1.1.0'],
      'listing only the version hub holds',
    );
    await releasedWhenBack(t, s, 'hubdep');
  },
);

t.test(
  'cargo: cargo fetch of a locked crate after the upstream deleted it',
  { skip: CARGO ? false : missingClient('cargo', '~/.cargo/bin/cargo or HUB_TEST_CARGO') },
  async (t) => {
    const s = await keptSetup(t, {
      kind: cargo,
      type: 'cargo',
      root: fixtures('cargo'),
      upstreamPath: '/index',
      gone: (u) => u.includes('percent-encoding'),
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-kept-cargo-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.mkdirSync(path.join(dir, 'app', 'src'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'app', 'Cargo.toml'),
      '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nform_urlencoded = "1.1"\n',
    );
    fs.writeFileSync(path.join(dir, 'app', 'src', 'main.rs'), 'fn main() {}\n');
    const fetchWith = async (label: string) => {
      const home = path.join(dir, `cargo-home-${label}`);
      fs.mkdirSync(home);
      fs.writeFileSync(
        path.join(home, 'config.toml'),
        `[registries.hub]\nindex = "sparse+${s.base}/registry/"\n\n[source.crates-io]\nreplace-with = "hub"\n\n[net]\nretry = 0\n`,
      );
      const env = {
        PATH: process.env.PATH,
        HOME: dir,
        RUSTUP_HOME: process.env.RUSTUP_HOME ?? path.join(os.homedir(), '.rustup'),
        RUSTUP_AUTO_INSTALL: '0',
        CARGO_HOME: home,
        CARGO_TERM_COLOR: 'never',
        CARGO_HTTP_TIMEOUT: '60',
      };
      return run(CARGO!, ['fetch'], { cwd: path.join(dir, 'app'), env, timeout: 300_000 }).then(
        () => 'ok',
        (e: { stderr: string }) => `failed: ${e.stderr}`,
      );
    };
    t.equal(await fetchWith('first'), 'ok', 'form_urlencoded and percent-encoding fetched through hub');
    t.match(
      fs.readFileSync(path.join(dir, 'app', 'Cargo.lock'), 'utf8'),
      /name = "percent-encoding"\nversion = "2\.2\.0"/,
      'the lockfile pins percent-encoding 2.2.0',
    );
    await s.hub.artifacts.idle();

    s.remove();
    t.equal(
      await status(`${s.base}/registry/pe/rc/percent-encoding`),
      404,
      'without the audit the index file goes with the upstream',
    );
    t.match(await fetchWith('before-audit'), /^failed:/, 'and cargo fetch fails');

    await auditKeepsThenReleases(t, s, 'percent-encoding');
    t.equal(await fetchWith('kept'), 'ok', 'a fresh CARGO_HOME fetches the locked crate from the kept index file');
    await releasedWhenBack(t, s, 'percent-encoding');
  },
);

t.test(
  'rubygems: bundle install of a held gem after the upstream deleted it',
  { skip: which('bundle', ['--version']) ? false : missingClient('bundle', 'apt-get install ruby-bundler') },
  async (t) => {
    const root = fixtures('rubygems');
    // Removed upstream, hubdep also leaves the /versions file, as on a real server.
    let removed = false;
    const versions: FixtureHandler = async (req, res) => {
      if (!removed || req.url !== '/versions') return false;
      const body = fs.readFileSync(path.join(root, 'versions'), 'utf8').replace(/^hubdep .*\n/m, '');
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(req.method === 'HEAD' ? undefined : body);
      return true;
    };
    const s = await keptSetup(t, {
      kind: rubygems,
      type: 'rubygems',
      root,
      base: versions,
      gone: (u) =>
        /^\/(info\/hubdep|api\/v1\/(versions|gems)\/hubdep\.json|gems\/hubdep-|quick\/Marshal\.4\.8\/hubdep-)/.test(u),
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-kept-gems-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    fs.mkdirSync(path.join(dir, 'app'));
    fs.writeFileSync(path.join(dir, 'app', 'Gemfile'), `source "${s.base}/"\n\ngem "hubdemo", "1.1.0"\n`);
    const bundle = async (label: string) => {
      const env = {
        PATH: process.env.PATH,
        HOME: dir,
        LANG: 'C.UTF-8',
        GEM_HOME: path.join(dir, `gem-home-${label}`),
        GEM_PATH: path.join(dir, `gem-home-${label}`),
        BUNDLE_USER_HOME: path.join(dir, `bundle-home-${label}`),
        BUNDLE_APP_CONFIG: path.join(dir, `bundle-config-${label}`),
        BUNDLE_PATH: path.join(dir, `bundle-${label}`),
        BUNDLE_GEMFILE: path.join(dir, 'app', 'Gemfile'),
        BUNDLE_DISABLE_VERSION_CHECK: 'true',
        BUNDLE_RETRY: '0',
      };
      return run('bundle', ['install'], { cwd: path.join(dir, 'app'), env, timeout: 180_000 }).then(
        (r) => r.stdout,
        (e: { stderr: string; stdout: string }) => `failed: ${e.stdout}${e.stderr}`,
      );
    };
    t.match(await bundle('first'), /Installing hubdep 1\.0\.0/, 'hubdemo and hubdep installed through hub');
    await s.hub.artifacts.idle();

    removed = true;
    s.remove();
    t.equal(await status(`${s.base}/info/hubdep`), 404, 'without the audit the listing goes with the upstream');
    t.match(await bundle('before-audit'), /^failed:/, 'and bundle install fails');

    await auditKeepsThenReleases(t, s, 'hubdep');
    t.match(
      await bundle('kept'),
      /Installing hubdep 1\.0\.0/,
      'a fresh bundle path installs hubdep 1.0.0 from the kept listing',
    );
    removed = false;
    await releasedWhenBack(t, s, 'hubdep');
  },
);
