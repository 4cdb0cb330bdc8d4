/**
 * The third-party path, end to end with the real npm client (decision 0068): the @hub packages are packed
 * (`npm pack`) and published (`npm publish`, a publisher's token) to a local npm registry served by a hub;
 * a kind plugin project in a folder outside the workspace installs them from that hub, builds with its own
 * tsconfig, passes kindConformance under its own .taprc, and is then loaded by the installed `hub serve`
 * through `[plugins] load`. Only loopback is reached: the third-party dependencies (koa, knex, tap,
 * typescript, ...) come through the same hub, whose proxy member's upstream serves the workspace's own
 * installed packages.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import npmKind from '@hub/kind-npm';
import publishing from '@hub/publishing';
import { startFixtureUpstream, startTestHub } from '@hub/testkit';
import { startWorkspaceUpstream } from './workspace-upstream.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EXAMPLE = path.join(ROOT, 'examples', 'kind-example');
const noNpm = spawnSync('npm', ['--version']).status === 0 ? false : 'the npm client is not installed';

interface Ran {
  code: number;
  stdout: string;
  /** Standard output and error, for a failure's message. */
  out: string;
}

/** Passes when `r` exited 0; a failure's message carries the end of what the command printed, and of npm's debug log. */
function succeeded(t: Test, r: Ran, what: string): boolean {
  if (r.code === 0) return t.equal(r.code, 0, what);
  const log = /A complete log of this run can be found in: (\S+)/.exec(r.out)?.[1];
  const debug = log && fs.existsSync(log) ? `\n--- ${log}:\n${fs.readFileSync(log, 'utf8').slice(-6000)}` : '';
  return t.equal(r.code, 0, `${what}: ${r.out.slice(-4000)}${debug}`);
}

/** `cmd args` in `cwd` with exactly `env`; never throws on a non-zero exit. */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeout = 240_000): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd, env, timeout, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({
        code: err ? Number((err as { code?: unknown }).code ?? 1) || 1 : 0,
        stdout,
        out: `${stdout}${stderr}`,
      });
    });
  });
}

/** The @hub packages `names` need at run time, themselves included. */
function hubClosure(names: readonly string[]): string[] {
  const dirs = new Map<string, string>();
  for (const d of fs.readdirSync(path.join(ROOT, 'packages'))) {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'packages', d, 'package.json'), 'utf8')) as {
      name: string;
    };
    dirs.set(manifest.name, d);
  }
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const manifest = JSON.parse(
      fs.readFileSync(path.join(ROOT, 'packages', dirs.get(name)!, 'package.json'), 'utf8'),
    ) as { dependencies?: Record<string, string> };
    for (const dep of Object.keys(manifest.dependencies ?? {})) if (dep.startsWith('@hub/')) visit(dep);
  };
  names.forEach(visit);
  return [...seen].map((n) => `packages/${dirs.get(n)!}`);
}

const version = (name: string) =>
  (JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;

/** The kind project a third party writes: the example's sources, and a manifest, tsconfig and .taprc of its own. */
function writeKindProject(dir: string): void {
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'test'));
  fs.copyFileSync(path.join(EXAMPLE, 'src', 'index.ts'), path.join(dir, 'src', 'index.ts'));
  fs.copyFileSync(path.join(EXAMPLE, 'test', 'conformance.test.ts'), path.join(dir, 'test', 'conformance.test.ts'));
  const manifest = {
    name: '@acme/kind-static',
    version: '1.0.0',
    type: 'module',
    main: 'dist/src/index.js',
    types: 'dist/src/index.d.ts',
    exports: { '.': { types: './dist/src/index.d.ts', import: './dist/src/index.js' } },
    files: ['dist/src'],
    hub: { contract: 1, role: 'kind', provides: ['static'] },
    dependencies: { '@hub/contract': '0.1.0' },
    devDependencies: {
      '@hub/testkit': '0.1.0',
      '@types/node': `^${version('@types/node')}`,
      tap: `^${version('tap')}`,
      typescript: `~${version('typescript')}`,
    },
  };
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      lib: ['ES2023'],
      types: ['node'],
      strict: true,
      declaration: true,
      skipLibCheck: true,
      rootDir: '.',
      outDir: 'dist',
    },
    include: ['src', 'test'],
  };
  fs.writeFileSync(path.join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  fs.writeFileSync(
    path.join(dir, '.taprc'),
    'files:\n  - dist/test/**/*.test.js\ndisable-coverage: true\nallow-incomplete-coverage: true\ntimeout: 300\n',
  );
}

/** Starts `hub serve` from an install folder; resolves its base URL once it says it is serving. */
function serve(dir: string, env: NodeJS.ProcessEnv): Promise<{ url: string; child: ChildProcess; log: () => string }> {
  const child = spawn(
    process.execPath,
    [
      path.join(dir, 'node_modules', '@hub', 'cli', 'dist', 'src', 'bin.js'),
      'serve',
      '--config',
      path.join(dir, 'hub.toml'),
    ],
    { cwd: dir, env },
  );
  let log = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`hub serve did not start in 60 s:\n${log}`)), 60_000);
    const onData = (c: Buffer) => {
      log += c.toString();
      const m = /serving (http:\/\/[^/\s]+)\/proxy\//.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, child, log: () => log });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`hub serve exited (${String(code)}):\n${log}`));
    });
  });
}

// Several hundred packages go through hub twice; a loaded CI machine gets more than the suite's default.
t.setTimeout(900_000);

t.test(
  'a kind built outside the workspace, from packages installed from hub, passes conformance and is served by hub serve',
  { skip: noNpm },
  async (t) => {
    let last = Date.now();
    const phases: string[] = [];
    /** Notes how long the step that just ended took (the test's figures, printed at its end). */
    const phase = (name: string) => {
      phases.push(`${name} ${((Date.now() - last) / 1000).toFixed(1)} s`);
      last = Date.now();
    };
    const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hub-third-party-')));
    t.teardown(() => fs.rmSync(tmp, { recursive: true, force: true }));
    t.notOk(tmp.startsWith(ROOT), `the project folder (${tmp}) is outside the workspace`);

    // The third-party packages, from the workspace's own node_modules folders.
    const modules = [
      path.join(ROOT, 'node_modules'),
      ...['packages', 'examples'].flatMap((p) =>
        fs.readdirSync(path.join(ROOT, p)).map((d) => path.join(ROOT, p, d, 'node_modules')),
      ),
    ];
    const upstream = await startWorkspaceUpstream(modules);
    t.teardown(() => upstream.close());

    // The registry: published @hub packages first, the proxy for everything else, one URL.
    const hub = await startTestHub({
      dir: path.join(tmp, 'registry-hub'),
      plugins: [npmKind, publishing],
      registries: [
        { name: 'npm-internal', type: 'npm', mode: 'local' },
        { name: 'npm-public', type: 'npm', mode: 'proxy', upstream: upstream.url },
        { name: 'npm', type: 'npm', mode: 'group', members: ['npm-internal', 'npm-public'] },
      ],
      // The upstream packs typescript or better-sqlite3 on first request, and several hundred fetches queue on
      // a loaded 2-core machine: hub's upstream limits (10 s for headers, 120 s per fetch) are for real upstreams.
      config: { server: { headers_timeout_ms: 300_000, deadline_ms: 900_000 } },
    });
    t.teardown(() => hub.close());
    const token = await hub.token('ci', { roles: ['publisher'] });
    const registry = `${hub.url}/proxy/npm/`;
    const internal = `${hub.url}/proxy/npm-internal/`;
    const npmrc = path.join(tmp, 'npmrc');
    fs.writeFileSync(
      npmrc,
      [
        `registry=${registry}`,
        ...[registry, internal].map((r) => `${r.replace(/^https?:/, '')}:_authToken=${token}`),
        '',
      ].join('\n'),
    );
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: tmp,
      npm_config_userconfig: npmrc,
      npm_config_cache: path.join(tmp, 'npm-cache'),
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      npm_config_fetch_retries: '0',
      npm_config_loglevel: 'warn',
      // Fewer downloads at once: hub checks each tarball as it streams, within 60 s (the archive check's time
      // limit), and fifteen large ones at once on a loaded 2-core machine can pass it (es-toolkit: 4,300 files).
      npm_config_maxsockets: '4',
    };

    // npm pack of every @hub package the cli and testkit need, from the workspace (the cli's prepack copies its catalogue).
    const workspaces = hubClosure(['@hub/cli', '@hub/testkit', '@hub/contract', '@hub/runtime']);
    const packs = path.join(tmp, 'packs');
    fs.mkdirSync(packs);
    const packed = await run(
      'npm',
      ['pack', '--json', '--pack-destination', packs, ...workspaces.flatMap((w) => ['-w', w])],
      ROOT,
      { ...env, npm_config_userconfig: path.join(tmp, 'none') },
    );
    if (!succeeded(t, packed, 'npm pack of the @hub packages')) return;
    phase('pack');
    const tarballs = fs.readdirSync(packs).filter((f) => f.endsWith('.tgz'));
    t.equal(tarballs.length, workspaces.length, `one tarball per package (${workspaces.length})`);
    const report = JSON.parse(packed.stdout) as Array<{ name: string; files: Array<{ path: string }> }>;
    const contents = new Map(report.map((r) => [r.name, r.files.map((f) => f.path)]));
    for (const name of ['@hub/contract', '@hub/runtime', '@hub/testkit', '@hub/cli']) {
      const files = contents.get(name) ?? [];
      t.ok(
        files.includes('dist/src/index.d.ts') && files.includes('CHANGELOG.md') && files.includes('README.md'),
        `${name}: types, README and CHANGELOG packed`,
      );
      t.notOk(
        files.some((f) => f.startsWith('dist/test/') || f.endsWith('.tsbuildinfo') || f.startsWith('src/')),
        `${name}: no tests, sources or build info packed`,
      );
    }
    t.ok(contents.get('@hub/cli')?.includes('plugins-registry.json'), '@hub/cli carries the plugin catalogue');
    t.notOk(
      fs.existsSync(path.join(ROOT, 'packages', 'cli', 'plugins-registry.json')),
      "the cli's postpack removed its copy",
    );

    // npm publish of each tarball to the local member, eight at a time.
    for (let i = 0; i < tarballs.length; i += 8) {
      const results = await Promise.all(
        tarballs
          .slice(i, i + 8)
          .map((f) => run('npm', ['publish', path.join(packs, f), '--registry', internal], tmp, env)),
      );
      if (!results.map((r, j) => succeeded(t, r, `npm publish ${tarballs[i + j]!}`)).every(Boolean)) return;
    }

    phase('publish');

    // The third party's project, outside the workspace.
    const project = path.join(tmp, 'kind-static');
    writeKindProject(project);
    const install = await run('npm', ['install', '--ignore-scripts'], project, env);
    if (!succeeded(t, install, 'npm install in the kind project')) return;
    phase('install');
    const lock = JSON.parse(fs.readFileSync(path.join(project, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string }>;
    };
    const resolved = Object.entries(lock.packages).filter(([k]) => k !== '');
    t.ok(resolved.length > 50, `the project installed its tree (${resolved.length} packages)`);
    t.same(
      resolved.filter(([, p]) => !p.resolved?.startsWith(registry)).map(([k]) => k),
      [],
      'every package came from the hub registry',
    );
    t.notOk(
      fs.existsSync(path.join(project, 'node_modules', '@hub', 'cli')),
      'testing a kind does not install the cli',
    );
    const testkitTree = fs.readdirSync(path.join(project, 'node_modules', '@hub')).sort();
    t.notOk(
      testkitTree.some((n) => n.startsWith('kind-')),
      `testing a kind installs no first-party kind (@hub/: ${testkitTree.join(', ')})`,
    );

    const tsc = await run(
      process.execPath,
      [path.join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'],
      project,
      env,
    );
    if (!succeeded(t, tsc, 'tsc builds the kind project')) return;
    phase('tsc');
    const tap = await run(
      process.execPath,
      [path.join(project, 'node_modules', 'tap', 'dist', 'esm', 'run.mjs')],
      project,
      env,
      300_000,
    );
    succeeded(t, tap, "tap runs the kind project's tests");
    t.match(tap.out, /the static kind passes kindConformance/, 'the conformance test ran');

    phase('tap');

    // The operator's side: the cli and the kind's own tarball installed together, the kind named in [plugins] load.
    const kindPack = await run('npm', ['pack', '--json', '--pack-destination', packs], project, env);
    if (!succeeded(t, kindPack, 'npm pack of the kind')) return;
    const kindTarball = (JSON.parse(kindPack.stdout) as Array<{ filename: string }>)[0]!.filename;
    const deploy = path.join(tmp, 'deploy');
    fs.mkdirSync(deploy);
    const deployManifest = {
      name: 'acme-hub',
      version: '1.0.0',
      private: true,
      dependencies: { '@hub/cli': '0.1.0', '@acme/kind-static': `file:${path.join(packs, kindTarball)}` },
    };
    fs.writeFileSync(path.join(deploy, 'package.json'), JSON.stringify(deployManifest, null, 2));
    const deployInstall = await run('npm', ['install', '--ignore-scripts', '--omit=dev'], deploy, env);
    if (!succeeded(t, deployInstall, 'npm install of the cli and the kind')) return;

    phase('cli install');
    const files = await startFixtureUpstream({
      root: t.testdir({
        tool: { 'versions.json': JSON.stringify({ versions: ['1.0.0'] }), '1.0.0': { 'tool.txt': 'tool one' } },
      }),
    });
    t.teardown(() => files.close());
    const adminToken = 'hub_third_party_admin_token_0123456789';
    fs.writeFileSync(
      path.join(deploy, 'hub.toml'),
      [
        '[server]',
        'listen = "127.0.0.1:0"',
        '[database]',
        'client = "sqlite"',
        `filename = ${JSON.stringify(path.join(deploy, 'hub.db'))}`,
        '[storage]',
        'kind = "fs"',
        `path = ${JSON.stringify(path.join(deploy, 'blobs'))}`,
        '[plugins]',
        'load = ["@acme/kind-static"]',
        '[[registries]]',
        'name = "static"',
        'type = "static"',
        'mode = "proxy"',
        `upstream = ${JSON.stringify(files.url)}`,
        '',
      ].join('\n'),
    );
    const served = await serve(deploy, { PATH: process.env.PATH, HOME: tmp, HUB_ADMIN_TOKEN: adminToken });
    t.teardown(
      () =>
        new Promise<void>((resolve) => {
          if (served.child.exitCode !== null) return resolve();
          served.child.once('exit', () => resolve());
          served.child.kill('SIGINT');
        }),
    );
    const listing = await fetch(`${served.url}/proxy/static/tool/versions.json`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    const body = await listing.text();
    t.equal(
      listing.status,
      200,
      `the installed hub serves the new kind's listing: ${body.slice(0, 300)}\n${served.log().slice(-1500)}`,
    );
    t.same(JSON.parse(body), { versions: ['1.0.0'] }, 'through the kind, from its upstream');
    const file = await fetch(`${served.url}/proxy/static/tool/1.0.0/tool.txt`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    t.equal(`${file.status} ${await file.text()}`, '200 tool one', 'and its files');
    phase('serve');

    const seen = await upstream.close();
    t.comment(
      `upstream: ${upstream.names} names (${upstream.versions} versions), ${seen.asked} asked, ${seen.served} tarballs served; ${phases.join(', ')}`,
    );
  },
);
