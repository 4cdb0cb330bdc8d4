import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { setup } from '../setup.js';
import { PNPM, project, YARN1, YARN4, YARN4_VERSION } from '../js-clients.js';
import { missingClient } from '@hub/testkit';

/**
 * Issue 26: yarn 1, yarn 4 (node-modules and PnP) and pnpm install through hub, set up as the package's README
 * says, against a fixture upstream on loopback. hubdemo 1.1.0 depends on hubdep.
 */
const DEPS = { hubdemo: '1.1.0', '@hubtest/scoped': '1.0.0' };

async function hubFor(t: Test) {
  const s = await setup(t);
  const token = await s.token('ci', { roles: ['reader'] });
  const registry = `${s.base}/`;
  // `//127.0.0.1:PORT/proxy/npm/`: the key npm-style clients look a registry's token up by.
  const key = registry.replace(/^https?:/, '');
  return { s, token, registry, key };
}

t.test(
  'yarn 1 installs through hub (always-auth in its environment)',
  { skip: YARN1 ? false : missingClient('yarn 1', 'npm ci installs it') },
  async (t) => {
    const { s, token, registry, key } = await hubFor(t);
    const p = project(t, YARN1!, DEPS);
    fs.writeFileSync(path.join(p.app, '.npmrc'), `registry=${registry}\n${key}:_authToken=${token}\n`);
    fs.writeFileSync(path.join(p.app, '.yarnrc'), `registry "${registry}"\ndisable-self-update-check true\n`);
    // Without always-auth yarn 1 sends no token for unscoped names, and hub's 401 is what it prints.
    const refused = await p.run(['install', '--non-interactive', '--cache-folder', path.join(p.dir, 'yarn-cache')]);
    t.not(refused.code, 0);
    t.match(
      refused.stderr,
      /a token with source:read is needed here/,
      "yarn 1 prints hub's reason, not [object Object]",
    );
    // yarn 1 reads always-auth from npm's settings only, and npm warns about it there: set it for yarn's run alone.
    p.env.npm_config_always_auth = 'true';
    const r = await p.run(['install', '--non-interactive', '--cache-folder', path.join(p.dir, 'yarn-cache')]);
    t.equal(r.code, 0, `yarn install: ${r.stdout}${r.stderr}`);
    t.equal(p.installed('hubdemo')?.version, '1.1.0');
    t.equal(p.installed('hubdep')?.version, '1.0.0', 'the dependency came through hub too');
    t.equal(p.installed('@hubtest/scoped')?.version, '1.0.0', 'a scoped package');
    t.match(
      fs.readFileSync(path.join(p.app, 'yarn.lock'), 'utf8'),
      `${registry}hubdemo/-/hubdemo-1.1.0.tgz`,
      'the lockfile resolves to hub',
    );
    t.equal(
      s.upstream.count((r) => Boolean(r.headers.authorization)),
      0,
      'the token never reaches the upstream',
    );
  },
);

/** yarn 4's settings for hub: the registry, its token, plain HTTP on loopback, and a cache inside the project. */
function yarn4Rc(registry: string, key: string, token: string, linker: 'node-modules' | 'pnp', cache: string): string {
  return [
    `npmRegistryServer: "${registry}"`,
    `npmRegistries:`,
    `  "${key}":`,
    `    npmAuthToken: "${token}"`,
    `    npmAlwaysAuth: true`,
    `unsafeHttpWhitelist: ["127.0.0.1"]`,
    `nodeLinker: ${linker}`,
    `enableGlobalCache: false`,
    `cacheFolder: "${cache}"`,
    `enableTelemetry: false`,
    `enableImmutableInstalls: false`,
    '',
  ].join('\n');
}

for (const linker of ['node-modules', 'pnp'] as const) {
  t.test(
    `yarn 4 (${linker}) installs, adds, shows package info and audits through hub`,
    { skip: YARN4 ? false : missingClient('yarn 4', 'npm ci installs @yarnpkg/cli-dist') },
    async (t) => {
      const { s, token, registry, key } = await hubFor(t);
      const p = project(t, YARN4!, DEPS, { packageManager: `yarn@${YARN4_VERSION}` });
      fs.writeFileSync(
        path.join(p.app, '.yarnrc.yml'),
        yarn4Rc(registry, key, token, linker, path.join(p.dir, 'yarn-cache')),
      );
      fs.writeFileSync(path.join(p.app, 'yarn.lock'), '');
      const install = await p.run(['install']);
      t.equal(install.code, 0, `yarn install: ${install.stdout}${install.stderr}`);
      const add = await p.run(['add', 'hubdep@1.0.0']);
      t.equal(add.code, 0, `yarn add: ${add.stdout}${add.stderr}`);
      t.match(JSON.parse(fs.readFileSync(path.join(p.app, 'package.json'), 'utf8')), {
        dependencies: { hubdep: '1.0.0' },
      });
      const info = await p.run(['npm', 'info', 'hubdemo', '--json']);
      t.equal(info.code, 0, `yarn npm info: ${info.stdout}${info.stderr}`);
      t.match(JSON.parse(info.stdout), { name: 'hubdemo', version: '1.1.0' }, 'yarn npm info reads the packument');
      const audit = await p.run(['npm', 'audit']);
      t.equal(audit.code, 0, `yarn npm audit: ${audit.stdout}${audit.stderr}`);
      if (linker === 'node-modules') {
        t.equal(p.installed('hubdemo')?.version, '1.1.0');
        t.equal(p.installed('hubdep')?.version, '1.0.0');
        t.equal(p.installed('@hubtest/scoped')?.version, '1.0.0');
      } else {
        t.ok(fs.existsSync(path.join(p.app, '.pnp.cjs')), 'PnP: no node_modules, a .pnp.cjs');
        const run = await p.run([
          'node',
          '-e',
          'console.log(require("hubdemo/package.json").version, require("hubdep/package.json").version)',
        ]);
        t.equal(run.stdout.trim(), '1.1.0 1.0.0', `the packages resolve through PnP: ${run.stderr}`);
      }
      t.match(fs.readFileSync(path.join(p.app, 'yarn.lock'), 'utf8'), /hubdemo@npm:1\.1\.0/, 'locked');
      t.equal(
        s.upstream.count((r) => Boolean(r.headers.authorization)),
        0,
        'the token never reaches the upstream',
      );
    },
  );
}

t.test('pnpm installs through hub', { skip: PNPM ? false : missingClient('pnpm', 'npm ci installs it') }, async (t) => {
  const { s, token, registry, key } = await hubFor(t);
  const p = project(t, PNPM!, DEPS);
  fs.writeFileSync(
    path.join(p.app, '.npmrc'),
    `registry=${registry}\n${key}:_authToken=${token}\nupdate-notifier=false\n`,
  );
  const r = await p.run([
    'install',
    '--no-frozen-lockfile',
    '--store-dir',
    path.join(p.dir, 'pnpm-store'),
    '--reporter',
    'append-only',
  ]);
  t.equal(r.code, 0, `pnpm install: ${r.stdout}${r.stderr}`);
  t.equal(p.installed('hubdemo')?.version, '1.1.0');
  t.equal(p.installed('@hubtest/scoped')?.version, '1.0.0');
  t.ok(fs.existsSync(path.join(p.app, 'node_modules', '.pnpm', 'hubdep@1.0.0')), 'the dependency came through hub too');
  t.match(fs.readFileSync(path.join(p.app, 'pnpm-lock.yaml'), 'utf8'), /hubdep@1\.0\.0/);
  // pnpm audit asks npm 6's quick audit (then the full one); the fixture upstream has neither.
  const audit = await p.run(['audit']);
  t.equal(audit.code, 0, `pnpm audit: ${audit.stdout}${audit.stderr}`);
  t.match(audit.stdout, /No known vulnerabilities found/);
  t.equal(
    s.upstream.count((r) => Boolean(r.headers.authorization)),
    0,
    'the token never reaches the upstream',
  );
});
