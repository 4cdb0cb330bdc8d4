import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import publishing from '@hub/publishing';
import { goFixtureHandler, makeZip, rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import go from '../../src/index.js';
import { FIXTURES } from '../setup.js';
import { goEnvVars, goHome, noGo, run } from '../go-env.js';

/**
 * Issue 28: `go mod download` through a group of a local registry (`go-internal`, a published module) and two
 * fixture upstreams (`go-public`: the shared fixtures; `go-vendor`: example.com/Hub/demo v1.2.0 only).
 */
const escape = (s: string) => s.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);

/** A module version's three files; the package says which version it is. */
function moduleFiles(module: string, version: string) {
  const pkg = module.split('/').at(-1)!;
  return {
    info: Buffer.from(JSON.stringify({ Version: version, Time: '2024-05-01T10:00:00Z' })),
    mod: Buffer.from(`module ${module}\n\ngo 1.19\n`),
    zip: makeZip({
      [`${module}@${version}/go.mod`]: `module ${module}\n\ngo 1.19\n`,
      [`${module}@${version}/${pkg}.go`]: `package ${pkg}\n\nconst Version = "${version}"\n`,
    }),
  };
}

/** A fixture proxy folder holding `module` at `version` only. */
function vendorFolder(dir: string, module: string, version: string): string {
  const at = path.join(dir, escape(module), '@v');
  fs.mkdirSync(at, { recursive: true });
  const files = moduleFiles(module, version);
  fs.writeFileSync(path.join(at, 'list'), `${version}\n`);
  for (const ext of ['info', 'mod', 'zip'] as const) fs.writeFileSync(path.join(at, `${version}.${ext}`), files[ext]);
  return dir;
}

async function groupHub(t: Test) {
  const pub = await startFixtureUpstream({ handler: goFixtureHandler(FIXTURES) });
  t.teardown(() => pub.close());
  const dir = t.testdir();
  const vendor = await startFixtureUpstream({
    handler: goFixtureHandler(vendorFolder(path.join(dir, 'vendor'), 'example.com/Hub/demo', 'v1.2.0')),
  });
  t.teardown(() => vendor.close());
  const hub = await startTestHub({
    dir: path.join(dir, 'hub'),
    plugins: [go, publishing],
    registries: [
      { name: 'go-internal', type: 'go', mode: 'local' },
      { name: 'go-public', type: 'go', upstream: pub.url },
      { name: 'go-vendor', type: 'go', upstream: vendor.url },
      { name: 'go', type: 'go', mode: 'group', members: ['go-internal', 'go-public', 'go-vendor'] },
    ],
    // go sends credentials only over HTTPS: reads are anonymous here, the publish needs a token.
    config: { auth: { anonymous: ['source:read'] } },
  });
  t.teardown(() => hub.close());
  const publisher = await hub.token('ci', { roles: ['publisher'] });
  const internal = 'example.com/acme/lib';
  const files = moduleFiles(internal, 'v0.1.0');
  for (const ext of ['info', 'mod', 'zip'] as const) {
    const res = await fetch(`${hub.url}/proxy/go-internal/${internal}/@v/v0.1.0.${ext}`, {
      method: 'PUT',
      body: files[ext],
      headers: { authorization: `Bearer ${publisher}` },
    });
    t.equal(res.status, 201, `published ${ext}`);
  }
  return { hub, pub, vendor, internal, base: `${hub.url}/proxy/go` };
}

t.test(
  'go mod download through a group: a published module, a public one, and the newest version from the second upstream',
  { skip: noGo },
  async (t) => {
    const s = await groupHub(t);
    const list = await rawRequest(`${s.base}/example.com/!hub/demo/@v/list`);
    t.same(list.body.toString().trim().split('\n'), ['v1.0.0', 'v1.1.0', 'v1.2.0'], 'the merged list, in semver order');

    const home = goHome(t, 'hub-go-group-');
    const env = goEnvVars(home, s.base);
    const out = await run(
      'go',
      [
        'mod',
        'download',
        '-json',
        `${s.internal}@v0.1.0`,
        'github.com/pkg/errors@v0.9.1',
        'example.com/Hub/demo@latest',
      ],
      { cwd: home, env, timeout: 120_000 },
    );
    const results = out.stdout
      .trim()
      .split(/\n(?=\{)/)
      .map((j) => JSON.parse(j) as { Path: string; Version: string; Zip?: string; Error?: string });
    t.same(
      results.map((r) => [r.Path, r.Version, r.Error]),
      [
        [s.internal, 'v0.1.0', undefined],
        ['github.com/pkg/errors', 'v0.9.1', undefined],
        ['example.com/Hub/demo', 'v1.2.0', undefined],
      ],
    );
    t.ok(
      results.every((r) => r.Zip && fs.existsSync(r.Zip)),
      'every zip is in the module cache',
    );
    t.ok(s.vendor.count((r) => r.url.endsWith('/v1.2.0.zip')) === 1, "v1.2.0's zip came from the second upstream");
    t.equal(
      s.pub.count((r) => r.url.includes('/acme/lib/')),
      0,
      'the published module was never asked of an upstream',
    );
    t.equal(
      s.vendor.count((r) => r.url.includes('/acme/lib/')),
      0,
    );
  },
);
