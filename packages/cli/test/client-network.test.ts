/**
 * The built-in default and `hub init` carry the package managers' network settings (npm's proxy, https-proxy,
 * noproxy, cafile and strict-ssl; pip's proxy and cert; cargo's http.proxy and http.cainfo), and the README's
 * first command works on a machine whose npm needs a cafile (`npm-client.test.ts`; issue 27, decision 0048).
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { loadConfig } from '@hub/runtime';
import { makeTestCa } from '@hub/testkit';
import { builtInConfig } from '../src/built-in-config.js';
import { cargoNetwork, npmNetwork, pipNetwork } from '../src/client-network.js';
import { configSource } from '../src/config.js';
import { clientNetworks, renderInitToml } from '../src/init.js';
import { runHubBinary } from './run-hub.js';

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

t.test(
  'npm: env npm_config_* over the project .npmrc over ~/.npmrc over the global npmrc; relative cafile, ${VAR}, strict-ssl',
  async (t) => {
    const root = t.testdir();
    const home = path.join(root, 'home');
    write(root, {
      'home/.npmrc':
        '; user config\nhttps-proxy = "http://user:pw@proxy.corp.test:3128"\ncafile=certs/corp.pem\nnoproxy=localhost, .corp.test\nstrict-ssl=false\n',
      'prefix/etc/npmrc': 'proxy=http://global-proxy:8080\ncafile=/etc/global.pem\n',
      'work/.npmrc': 'noproxy=${CORP_NO_PROXY}\n',
    });
    const n = npmNetwork({
      env: { npm_config_prefix: path.join(root, 'prefix'), CORP_NO_PROXY: 'build.internal' },
      home,
      cwd: path.join(root, 'work'),
    });
    t.same(n, {
      httpProxy: 'http://global-proxy:8080',
      httpsProxy: 'http://user:pw@proxy.corp.test:3128',
      noProxy: ['build.internal'],
      caFile: path.join(home, 'certs', 'corp.pem'),
      strictSslOff: true,
      sources: ['the global npmrc', '~/.npmrc', './.npmrc'],
    });
    // What `npm start` exports to its script: set values as npm_config_*, strict-ssl=false as an empty string.
    // No global npmrc of this machine in the way.
    const noGlobal = { npm_config_globalconfig: path.join(root, 'no-global-npmrc') };
    const exported = npmNetwork({
      env: {
        ...noGlobal,
        npm_config_cafile: '/x/ca.pem',
        npm_config_https_proxy: 'http://p:1',
        npm_config_strict_ssl: '',
      },
      home: path.join(root, 'nobody'),
      cwd: root,
    });
    t.same(exported, {
      httpsProxy: 'http://p:1',
      caFile: '/x/ca.pem',
      strictSslOff: true,
      sources: ['npm_config_https_proxy', 'npm_config_cafile', 'npm_config_strict_ssl'],
    });
    t.notOk(npmNetwork({ env: { ...noGlobal, npm_config_strict_ssl: 'true' }, home, cwd: root }).strictSslOff);
    t.same(
      npmNetwork({
        env: { ...noGlobal, npm_config_noproxy: '', npm_config_cafile: '/x/ca.pem' },
        home: path.join(root, 'nobody'),
        cwd: root,
      }).sources,
      ['npm_config_cafile'],
      'an empty exported setting is not named as a source',
    );
  },
);

t.test(
  'pip: PIP_PROXY / PIP_CERT over pip.conf [global]; cargo: CARGO_HTTP_* over ~/.cargo/config.toml [http]',
  async (t) => {
    const home = t.testdir();
    write(home, {
      '.config/pip/pip.conf':
        '[global]\nproxy = proxy.corp.test:3128\ncert = /etc/corp/ca.pem\n[install]\nproxy = http://ignored:1\n',
      '.cargo/config.toml': '[http]\nproxy = "cargo-proxy:3128"\ncainfo = "certs/ca.pem"\n',
    });
    t.same(pipNetwork({ env: {}, home, cwd: home }), {
      httpProxy: 'http://proxy.corp.test:3128',
      httpsProxy: 'http://proxy.corp.test:3128',
      caFile: '/etc/corp/ca.pem',
      sources: ['~/.config/pip/pip.conf'],
    });
    t.same(pipNetwork({ env: { PIP_PROXY: 'http://env-proxy:1' }, home, cwd: home }).httpsProxy, 'http://env-proxy:1');
    t.same(cargoNetwork({ env: {}, home, cwd: home }), {
      httpProxy: 'http://cargo-proxy:3128',
      httpsProxy: 'http://cargo-proxy:3128',
      caFile: path.join(home, 'certs', 'ca.pem'),
      sources: ['~/.cargo/config.toml'],
    });
    t.same(cargoNetwork({ env: { CARGO_HTTP_CAINFO: '/ca.pem' }, home, cwd: home }).caFile, '/ca.pem');
    t.same(cargoNetwork({ env: {}, home: path.join(home, 'none'), cwd: home }), { sources: [] });
  },
);

t.test(
  "the built-in default takes npm's cafile, https-proxy and noproxy from a temporary HOME's .npmrc; the start note names them without the password and warns about strict-ssl",
  async (t) => {
    const home = t.testdir();
    const ca = makeTestCa(path.join(home, 'ca'));
    write(home, {
      '.npmrc': `registry=https://registry.corp.test/npm/\nhttps-proxy=http://svc:Pr0xy-pw@proxy.corp.test:3128\nnoproxy=.corp.test\ncafile=${ca.certPath}\nstrict-ssl=false\n`,
    });
    const env = { HOME: home, PATH: process.env.PATH };
    const cfg = builtInConfig(env, undefined, () => 'https://registry.corp.test/npm/');
    const npm = cfg.registries[0]!;
    t.equal(npm.upstream, 'https://registry.corp.test/npm', 'the registry (`npm config get registry` in real use)');
    t.equal(npm.proxy, 'http://svc:Pr0xy-pw@proxy.corp.test:3128', 'the proxy, credentials kept in memory');
    t.equal(npm.ca_file, ca.certPath);
    t.same(cfg.server.upstream_no_proxy, ['.corp.test']);

    const { note } = configSource(undefined, { ...env, npm_config_registry: 'https://registry.corp.test/npm/' });
    t.match(note, /with npm's proxy http:\/\/proxy\.corp\.test:3128 and cafile .*ca\.pem \(from ~\/\.npmrc\)/);
    t.notMatch(note, /Pr0xy-pw|svc:/, 'no credentials in what is printed');
    t.match(note, /WARNING: npm has strict-ssl=false, which hub does not copy/);
  },
);

t.test(
  "hub init writes the clients' proxies and CAs into their registries; a proxy with credentials becomes proxy_env",
  async (t) => {
    const home = t.testdir();
    const ca = makeTestCa(path.join(home, 'ca'));
    write(home, {
      '.npmrc': `https-proxy=http://svc:Pr0xy-pw@proxy.corp.test:3128\nnoproxy=.corp.test\ncafile=${ca.certPath}\n`,
      '.config/pip/pip.conf': `[global]\nproxy = http://proxy.corp.test:3128\ncert = ${ca.certPath}\n`,
    });
    const networks = clientNetworks({ env: {}, home, cwd: home });
    const toml = renderInitToml(
      [
        { name: 'npm', type: 'npm', upstream: 'https://registry.corp.test/npm', source: '~/.npmrc' },
        { name: 'pypi', type: 'pypi', upstream: 'https://pypi.corp.test/simple', source: 'pip config list' },
      ],
      { networks },
    );
    t.match(toml, /upstream_no_proxy = \[".corp.test"\]/);
    t.match(toml, /proxy_env = "HUB_NPM_PROXY"/);
    t.match(toml, /proxy = "http:\/\/proxy\.corp\.test:3128"  # from ~\/\.config\/pip\/pip\.conf/);
    t.equal(toml.split(`ca_file = ${JSON.stringify(ca.certPath)}`).length - 1, 2, "each registry gets its client's CA");
    t.notMatch(toml, /Pr0xy-pw/, 'no password in a generated file');
    const file = path.join(home, 'hub.toml');
    fs.writeFileSync(file, toml);
    const cfg = loadConfig({ path: file, env: { HUB_NPM_PROXY: 'http://svc:Pr0xy-pw@proxy.corp.test:3128' } });
    t.equal(cfg.registries[0]?.proxy, 'http://svc:Pr0xy-pw@proxy.corp.test:3128');
    t.equal(cfg.registries[1]?.ca_file, ca.certPath);
  },
);

// The binary, as a user runs it: detection and network settings both from HOME.
t.test("`hub init` (the binary) writes npm's cafile and https-proxy from ~/.npmrc into the npm registry", async (t) => {
  const home = t.testdir();
  const ca = makeTestCa(path.join(home, 'ca'));
  write(home, {
    '.npmrc': `registry=https://registry.corp.test/npm/\nhttps-proxy=http://proxy.corp.test:3128\ncafile=${ca.certPath}\nnoproxy=.corp.test\n`,
  });
  // A stand-in npm answers `npm config get registry` at once; no other client is on this PATH, so detection is quick and the same on every machine.
  write(home, { 'bin/npm': '#!/bin/sh\necho https://registry.corp.test/npm/\n' });
  fs.chmodSync(path.join(home, 'bin', 'npm'), 0o755);
  const r = await runHubBinary(['init', '--output', '-'], { HOME: home, PATH: path.join(home, 'bin') }, home);
  t.equal(r.code, 0, r.stderr);
  const npmTable = r.stdout.slice(r.stdout.indexOf('name = "npm"'));
  t.match(
    npmTable,
    /upstream = "https:\/\/registry\.corp\.test\/npm"\nproxy = "http:\/\/proxy\.corp\.test:3128"  # from ~\/\.npmrc\nca_file = /,
  );
  t.match(r.stdout, /upstream_no_proxy = \[".corp.test"\]/);
  fs.writeFileSync(path.join(home, 'hub.toml'), r.stdout);
  t.equal(
    loadConfig({ path: path.join(home, 'hub.toml'), env: {} }).registries.find((x) => x.name === 'npm')?.ca_file,
    ca.certPath,
    'the written file loads',
  );
});
