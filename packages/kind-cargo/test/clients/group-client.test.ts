import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import publishing from '@hub/publishing';
import { rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import cargoKind from '../../src/index.js';
import { crateFile, publishMeta, uploadBody } from '../publish-body.js';
import { FIXTURES } from '../setup.js';
import { cargo, cargoEnv, noCargo, run } from '../cargo-env.js';

/**
 * Issue 28: `cargo fetch` through a group of a local registry (`crates-internal`: a published crate), the shared
 * fixture upstream (`crates-public`: form_urlencoded, percent-encoding, cfg-if 1.0.0) and a second upstream
 * (`crates-vendor`: cfg-if 1.0.1 only), served together as `/proxy/crates`.
 */

/** A sparse index folder with cfg-if 1.0.1 and its .crate, `dl` templated to the fixture server. */
function vendorFolder(dir: string): string {
  const crate = crateFile('cfg-if', '1.0.1');
  fs.mkdirSync(path.join(dir, 'index', 'cf', 'g-'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'crates', 'cfg-if'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'index', 'config.json.tmpl'),
    '{"dl":"{{UPSTREAM}}/crates/{crate}/{crate}-{version}.crate"}',
  );
  const line = {
    name: 'cfg-if',
    vers: '1.0.1',
    deps: [],
    cksum: createHash('sha256').update(crate).digest('hex'),
    features: {},
    yanked: false,
  };
  fs.writeFileSync(path.join(dir, 'index', 'cf', 'g-', 'cfg-if'), `${JSON.stringify(line)}\n`);
  fs.writeFileSync(path.join(dir, 'crates', 'cfg-if', 'cfg-if-1.0.1.crate'), crate);
  return dir;
}

t.test(
  'cargo fetch through a group: a published crate, public crates, and the newest cfg-if from the second upstream',
  { skip: noCargo },
  async (t) => {
    const dir = t.testdir();
    const pub = await startFixtureUpstream({ root: FIXTURES });
    t.teardown(() => pub.close());
    const vendor = await startFixtureUpstream({ root: vendorFolder(path.join(dir, 'vendor')) });
    t.teardown(() => vendor.close());
    const hub = await startTestHub({
      dir: path.join(dir, 'hub'),
      plugins: [cargoKind, publishing],
      registries: [
        { name: 'crates-internal', type: 'cargo', mode: 'local' },
        { name: 'crates-public', type: 'cargo', upstream: `${pub.url}/index` },
        { name: 'crates-vendor', type: 'cargo', upstream: `${vendor.url}/index` },
        {
          name: 'crates',
          type: 'cargo',
          mode: 'group',
          members: ['crates-internal', 'crates-public', 'crates-vendor'],
        },
      ],
    });
    t.teardown(() => hub.close());
    const publisher = await hub.token('ci', { roles: ['publisher'] });
    const reader = await hub.token('dev', { roles: ['reader'] });
    const published = await fetch(`${hub.url}/proxy/crates-internal/api/v1/crates/new`, {
      method: 'PUT',
      headers: { authorization: publisher },
      body: uploadBody(publishMeta('acme-internal', '0.1.0'), crateFile('acme-internal', '0.1.0')),
    });
    t.equal(published.status, 200, 'published to the local member');

    const index = await rawRequest(`${hub.url}/proxy/crates/registry/cf/g-/cfg-if`, {
      headers: { authorization: reader },
    });
    t.same(
      index.body
        .toString()
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { vers: string }).vers),
      ['1.0.0', '1.0.1'],
      'the merged index file: both upstreams, by version',
    );

    // A throwaway project outside t.testdir() (cargo reads .cargo/config.toml from every parent folder).
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-cargo-group-'));
    t.teardown(() => fs.rmSync(work, { recursive: true, force: true }));
    for (const sub of ['home', 'cargo-home', 'app/src']) fs.mkdirSync(path.join(work, sub), { recursive: true });
    fs.writeFileSync(
      path.join(work, 'cargo-home', 'config.toml'),
      `[registries.hub]\nindex = "sparse+${hub.url}/proxy/crates/registry/"\n\n[registry]\nglobal-credential-providers = ["cargo:token"]\n\n[source.crates-io]\nreplace-with = "hub"\n\n[net]\nretry = 0\n`,
    );
    fs.writeFileSync(
      path.join(work, 'app', 'Cargo.toml'),
      '[package]\nname = "app"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\nform_urlencoded = "1.1"\ncfg-if = "1"\nacme-internal = "0.1"\n',
    );
    fs.writeFileSync(path.join(work, 'app', 'src', 'main.rs'), 'fn main() {}\n');
    const env = cargoEnv({ home: path.join(work, 'home'), cargoHome: path.join(work, 'cargo-home'), token: reader });
    await run(cargo!, ['fetch'], { cwd: path.join(work, 'app'), env, timeout: 300_000 });
    const lock = fs.readFileSync(path.join(work, 'app', 'Cargo.lock'), 'utf8');
    const locked = [...lock.matchAll(/name = "([^"]+)"\nversion = "([^"]+)"/g)].map((m) => `${m[1]} ${m[2]}`).sort();
    t.same(locked, [
      'acme-internal 0.1.0',
      'app 0.1.0',
      'cfg-if 1.0.1',
      'form_urlencoded 1.1.0',
      'percent-encoding 2.2.0',
    ]);
    t.equal(
      vendor.count((r) => r.url === '/crates/cfg-if/cfg-if-1.0.1.crate'),
      1,
      "cfg-if 1.0.1's .crate came from the second upstream",
    );
    t.equal(
      pub.count((r) => r.url.includes('acme')) + vendor.count((r) => r.url.includes('acme')),
      0,
      'the published crate was never asked of an upstream',
    );
    const downloaded = fs
      .readdirSync(path.join(work, 'cargo-home', 'registry', 'cache'))
      .flatMap((d) => fs.readdirSync(path.join(work, 'cargo-home', 'registry', 'cache', d)));
    t.same(
      downloaded.sort(),
      [
        'acme-internal-0.1.0.crate',
        'cfg-if-1.0.1.crate',
        'form_urlencoded-1.1.0.crate',
        'percent-encoding-2.2.0.crate',
      ],
      'cargo verified and kept every .crate',
    );
  },
);
