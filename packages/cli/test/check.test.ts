/**
 * hub check (packages/cli/README.md), in-process through main() and once through the real binary: against a real hub
 * with npm, cargo, maven, rubygems, nuget, terraform, github and openvsx registries over the kinds' fixture upstreams (every check
 * passes; a missing coordinate, a faulty upstream or a missing token fails with the reason; a 404
 * or a missing tool is a skip), against a second hub for the go command (which sends tokens only
 * over https), and against a stand-in server for content a real hub never serves.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import cargo from '@hub/kind-cargo';
import github from '@hub/kind-forge/github';
import go from '@hub/kind-go';
import maven from '@hub/kind-maven';
import npm from '@hub/kind-npm';
import nuget from '@hub/kind-nuget';
import rubygems from '@hub/kind-rubygems';
import terraform from '@hub/kind-terraform';
import openvsx from '@hub/kind-vsix/openvsx';
import {
  goFixtureHandler,
  npmFixtureHandler,
  pathOf,
  sendBody,
  startFixtureUpstream,
  startTestHub,
} from '@hub/testkit';
import { adminClient } from '../src/client.js';
import { checkKit, tarEntries, xmlRoot } from '../src/check-kit.js';
import { closedPort, expectUsageErrors, json, lines, runHub, runHubBinary } from './run-hub.js';

const fixtures = (kind: string, rel = 'upstream/') =>
  fileURLToPath(new URL(`../../../${kind}/test/fixtures/${rel}`, import.meta.url));
const VSIX = fs.readFileSync(fixtures('kind-vsix', 'hubpub.hubext-1.0.0.vsix'));
const ASSET = zlib.gzipSync(Buffer.from('a release asset'));

/** Starts a fixture upstream and closes it at the end. */
async function upstreamOf(o: Parameters<typeof startFixtureUpstream>[0]) {
  const u = await startFixtureUpstream(o);
  t.teardown(() => u.close());
  return u;
}

const npmUp = await upstreamOf({ handler: npmFixtureHandler(fixtures('kind-npm')) });
const cargoUp = await upstreamOf({ root: fixtures('kind-cargo') });
const mavenUp = await upstreamOf({ root: fixtures('kind-maven') });
const gemsUp = await upstreamOf({ root: fixtures('kind-rubygems') });
const nugetUp = await upstreamOf({ root: fixtures('kind-nuget') });
const tfUp = await upstreamOf({ root: fixtures('kind-terraform') });
// A forge with one release asset, and an openvsx server with one extension file.
const forgeUp = await upstreamOf({
  handler: (req, res) => {
    if (pathOf(req.url) !== '/hubowner/hubtool/releases/download/v1.0.0/hubtool_linux_amd64.tar.gz') return false;
    sendBody(req, res, 200, { 'content-type': 'application/octet-stream' }, ASSET);
    return true;
  },
});
const vsxUp = await upstreamOf({
  handler: (req, res) => {
    if (pathOf(req.url) !== '/api/hubpub/hubext/1.0.0/file/hubpub.hubext-1.0.0.vsix') return false;
    sendBody(req, res, 200, { 'content-type': 'application/octet-stream' }, VSIX);
    return true;
  },
});
const goUp = await upstreamOf({ handler: goFixtureHandler(fixtures('kind-go')) });

const dir = t.testdir({ hub: {}, 'go-hub': {} });
/** The hub of most tests: tokens required, one registry per kind. */
const hub = await startTestHub({
  dir: path.join(dir, 'hub'),
  plugins: [npm, cargo, maven, rubygems, nuget, terraform, github, openvsx],
  registries: [
    { name: 'npm', type: 'npm', mode: 'proxy', upstream: npmUp.url },
    { name: 'crates', type: 'cargo', mode: 'proxy', upstream: `${cargoUp.url}/index` },
    { name: 'maven', type: 'maven', mode: 'proxy', upstream: mavenUp.url },
    { name: 'gems', type: 'rubygems', mode: 'proxy', upstream: gemsUp.url },
    { name: 'nuget', type: 'nuget', mode: 'proxy', upstream: `${nugetUp.url}/v3/index.json` },
    { name: 'tf', type: 'terraform', mode: 'proxy', upstream: tfUp.url },
    { name: 'gh', type: 'github', mode: 'proxy', upstream: forgeUp.url },
    { name: 'vsx', type: 'openvsx', mode: 'proxy', upstream: vsxUp.url },
  ],
});
t.teardown(() => hub.close());
const reader = await hub.token('ci', { roles: ['reader'] });

/** The go hub lets anonymous callers read: go sends no credentials over plain http. */
const goHub = await startTestHub({
  dir: path.join(dir, 'go-hub'),
  plugins: [go],
  registries: [{ name: 'go', type: 'go', upstream: goUp.url }],
  config: { auth: { anonymous: ['source:read'] } },
});
t.teardown(() => goHub.close());

/** The real tools, as the checks will find them on PATH (cargo needs 1.74 for sparse registries with tokens). */
const tool = (cmd: string, args: string[], ok: (out: string) => boolean): boolean => {
  try {
    return ok(execFileSync(cmd, args, { encoding: 'utf8', env: process.env, stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    return false;
  }
};
const hasCargo = tool('cargo', ['--version'], (out) => {
  const m = /^cargo 1\.(\d+)\./.exec(out);
  return Boolean(m && Number(m[1]) >= 74);
});
const hasGo = tool('go', ['version'], (out) => out.startsWith('go version'));

/** The tools need HOME (rustup finds its toolchains there); nothing else of this environment leaks in. */
const TOOL_ENV = {
  HOME: process.env.HOME ?? os.homedir(),
  ...(process.env.RUSTUP_HOME && { RUSTUP_HOME: process.env.RUSTUP_HOME }),
};
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runHub(['check', ...args], { HUB_URL: hub.url, HUB_TOKEN: reader, ...TOOL_ENV, ...env });
/** A PATH with no tools on it (the binary itself runs as process.execPath). */
const NO_TOOLS = path.join(dir, 'no-tools');
fs.mkdirSync(NO_TOOLS);

const EVERY_KIND = [
  ['--npm', 'npm', '--npm-package', 'hubdemo@1.0.0'],
  ['--cargo', 'crates', '--cargo-crate', 'cfg-if@1.0.0'],
  ['--github', 'gh', '--github-asset', 'hubowner/hubtool/v1.0.0/hubtool_linux_amd64.tar.gz'],
  ['--openvsx', 'vsx', '--openvsx-extension', 'hubpub.hubext@1.0.0'],
  ['--maven', 'maven', '--maven-artifact', 'org.hamcrest:hamcrest-core:1.3'],
  ['--terraform', 'tf', '--terraform-provider', 'hubns/hubdemo@1.2.3/linux_amd64'],
  ['--rubygems', 'gems', '--rubygems-gem', 'hubdemo@1.0.0'],
  ['--nuget', 'nuget', '--nuget-package', 'HubDemo@1.0.0'],
].flat();

t.test('every kind passes with coordinates the fixtures hold; one line per check, then a summary', async (t) => {
  const r = await cli(EVERY_KIND);
  t.equal(r.code, 0, r.stdout + r.stderr);
  t.equal(r.stderr, '');
  const out = lines(r.stdout);
  t.same(
    out.slice(0, -1).map((l) => l.split(':')[0]),
    ['npm', 'crates', 'gh', 'vsx', 'maven', 'tf', 'gems', 'nuget']
      .flatMap((n) => [`${n} http`, `${n} tool`])
      .map((x) => {
        if (x === 'gh tool') return `SKIP ${x}`;
        if (x === 'crates tool' && !hasCargo) return `SKIP ${x}`;
        return `PASS ${x}`;
      }),
    'in the order of the kinds, each passed (the github kind has no tool check)',
  );
  const line = (prefix: string) => out.find((l) => l.startsWith(prefix)) ?? '';
  t.match(
    line('PASS npm http:'),
    /GET \/proxy\/npm\/hubdemo \(Accept \*\/\*\) and \/proxy\/npm\/hubdemo\/1\.0\.0\/tarball: 200, gzip/,
  );
  t.match(
    line('PASS npm tool:'),
    /packument -> http:\/\/127\.0\.0\.1:\d+\/proxy\/npm\/hubdemo\/-\/hubdemo-1\.0\.0\.tgz: gzip, sha512 matches dist\.integrity/,
  );
  t.match(
    line('PASS crates http:'),
    /registry\/config\.json: 200, dl http:\/\/127\.0\.0\.1:\d+\/proxy\/crates\/api\/v1\/crates/,
  );
  if (hasCargo)
    t.match(
      line('PASS crates tool:'),
      /^PASS crates tool: cargo fetch resolved cfg-if 1\.0\.0 through sparse\+http:\/\/127\.0\.0\.1:\d+\/proxy\/crates\/registry\/$/,
      'the real cargo',
    );
  t.match(line('PASS gh http:'), /releases\/download\/v1\.0\.0\/hubtool_linux_amd64\.tar\.gz: 200, gzip/);
  t.match(line('PASS vsx http:'), /\/proxy\/vsx\/hubpub\.hubext\/1\.0\.0\/vsix: HTTP 200$/);
  t.match(line('PASS vsx tool:'), /hubpub\.hubext@1\.0\.0: ZIP/);
  t.match(line('PASS maven http:'), /maven2\/org\/hamcrest\/hamcrest-core\/maven-metadata\.xml: 200, XML <metadata>$/);
  t.match(line('PASS maven tool:'), /1\.3\/hamcrest-core-1\.3\.pom: 200, XML <project>$/);
  t.match(line('PASS tf http:'), /v1\/providers\/hubns\/hubdemo\/versions: 200, 2 versions$/);
  t.match(
    line('PASS tf tool:'),
    /1\.2\.3\/download\/linux\/amd64: 200, download_url http:\/\/127\.0\.0\.1:\d+\/proxy\/tf\/v1\/providers\/hubns\/hubdemo\/1\.2\.3\/download\/linux\/amd64\/archive\.zip$/,
    'without the signature',
  );
  t.match(line('PASS gems http:'), /api\/v1\/gems\/hubdemo\.json: 200, name hubdemo$/);
  t.match(line('PASS gems tool:'), /gems\/hubdemo-1\.0\.0\.gem: 200, POSIX tar with metadata\.gz and data\.tar\.gz$/);
  t.match(line('PASS nuget http:'), /nuget\/v3\/index\.json: 200, version 3\.0\.0, \d+ resources$/);
  t.match(
    line('PASS nuget tool:'),
    /hubdemo lists 1\.0\.0; \.nupkg is a ZIP/,
    'the id is folded to lower case, as the flat container spells it',
  );
  t.equal(out.at(-1), `16 checks: ${hasCargo ? 15 : 14} passed, 0 failed, ${hasCargo ? 1 : 2} skipped`);

  const j = await cli([...EVERY_KIND, '--json']);
  t.equal(j.code, 0);
  const answer = json(j);
  t.same(Object.keys(answer), ['checks', 'passed', 'failed', 'skipped']);
  t.match(answer, { passed: hasCargo ? 15 : 14, failed: 0, skipped: hasCargo ? 1 : 2 });
  t.match(answer.checks[0], { registry: 'npm', kind: 'npm', check: 'http', result: 'pass', detail: /200, gzip/ });
  t.match(answer.checks[5], { registry: 'gh', kind: 'github', check: 'tool', result: 'skip' });
  t.match(answer.checks[15], { registry: 'nuget', kind: 'nuget', check: 'tool', result: 'pass' });
});

t.test('the real binary: hub check prints its lines and exits with the result', async (t) => {
  const r = await runHubBinary(['check', '--npm', 'npm', '--npm-package', 'hubdemo@1.0.0'], {
    HUB_URL: hub.url,
    HUB_TOKEN: reader,
    ...TOOL_ENV,
  });
  t.equal(r.code, 0, r.stdout + r.stderr);
  t.match(r.stdout, /^PASS npm http: .+\nPASS npm tool: .+\n2 checks: 2 passed, 0 failed, 0 skipped\n$/);
});

t.test('a failing check: exit 1 and a FAIL line that says why', async (t) => {
  const missing = await cli(['--npm', 'npm', '--npm-package', 'hubdemo@9.9.9']);
  t.equal(missing.code, 1);
  t.match(
    missing.stdout,
    /^FAIL npm http: GET \/proxy\/npm\/hubdemo\/9\.9\.9\/tarball: HTTP 404: .+$/m,
    'a version the upstream lacks',
  );
  t.match(missing.stdout, /^FAIL npm tool: the packument of hubdemo has no version 9\.9\.9 with a dist\.tarball$/m);
  t.match(missing.stdout, /^2 checks: 0 passed, 2 failed, 0 skipped$/m);

  // The upstream answers 200 with text where the pom should be: the hub refuses it, the check says so.
  mavenUp.fault('/org/example/hubparent/2.0/hubparent-2.0.pom', {
    type: 'status',
    status: 200,
    body: 'this is not XML',
    headers: { 'content-type': 'application/xml' },
  });
  const pom = await cli(['--maven', 'maven', '--maven-artifact', 'org.example:hubparent:2.0']);
  t.equal(pom.code, 1);
  t.match(pom.stdout, /^PASS maven http: .*org\/example\/hubparent\/maven-metadata\.xml: 200, XML <metadata>$/m);
  t.match(
    pom.stdout,
    /^FAIL maven tool: GET \/proxy\/maven\/maven2\/org\/example\/hubparent\/2\.0\/hubparent-2\.0\.pom: HTTP 502: .+$/m,
  );
  mavenUp.clearFaults();

  const noToken = await cli(['--npm', 'npm', '--npm-package', 'hubdemo@1.0.0', '--json'], { HUB_TOKEN: '' });
  t.equal(noToken.code, 1, 'this hub needs a token');
  t.match(json(noToken), {
    failed: 2,
    checks: [
      { result: 'fail', detail: /HTTP 401/ },
      { result: 'fail', detail: /HTTP 401/ },
    ],
  });
  const withFlag = await cli(['--npm', 'npm', '--npm-package', 'hubdemo@1.0.0', '--token', reader], { HUB_TOKEN: '' });
  t.equal(withFlag.code, 0, '--token is sent');

  const url = `http://127.0.0.1:${await closedPort()}`;
  const down = await cli(['--url', url, '--rubygems', 'gems']);
  t.equal(down.code, 1, 'an unreachable hub fails every check');
  t.equal(
    down.stdout,
    [
      `FAIL gems http: cannot reach the hub at ${url}: connection refused (is it running? set --url or HUB_URL)`,
      `FAIL gems tool: cannot reach the hub at ${url}: connection refused (is it running? set --url or HUB_URL)`,
      '2 checks: 0 passed, 2 failed, 0 skipped',
      '',
    ].join('\n'),
  );
});

t.test('a 404 where `hub check` allows it, and a tool that is not installed, are skips: exit 0', async (t) => {
  const r = await cli(
    [
      '--openvsx',
      'vsx',
      '--openvsx-extension',
      'hubpub.hubext@9.9.9',
      '--terraform',
      'tf',
      '--terraform-provider',
      'hubns/hubdemo@9.9.9/linux_amd64',
      '--cargo',
      'crates',
      '--cargo-crate',
      'cfg-if@1.0.0',
    ],
    { PATH: NO_TOOLS },
  );
  t.equal(r.code, 0, r.stdout);
  t.same(lines(r.stdout), [
    'PASS crates http: GET /proxy/crates/registry/config.json: 200, dl ' + `${hub.url}/proxy/crates/api/v1/crates`,
    'SKIP crates tool: cargo not installed',
    'PASS vsx http: GET /proxy/vsx/hubpub.hubext/9.9.9/vsix: HTTP 404: hubpub.hubext 9.9.9 is not in the upstream of registry vsx',
    'SKIP vsx tool: hubpub.hubext@9.9.9 not found (404), nothing to install',
    'PASS tf http: GET /proxy/tf/v1/providers/hubns/hubdemo/versions: 200, 2 versions',
    'SKIP tf tool: hubns/hubdemo 9.9.9 for linux_amd64 not found (404)',
    '6 checks: 3 passed, 0 failed, 3 skipped',
  ]);
});

t.test('go: @latest over HTTP, and the go command with the hub as its only proxy', async (t) => {
  const goCli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    runHub(['check', '--url', goHub.url, '--go', 'go', ...args], { ...TOOL_ENV, ...env });
  const r = await goCli(['--go-module', 'example.com/Hub/demo@v1.0.0']);
  t.equal(r.code, 0, r.stdout + r.stderr);
  const out = lines(r.stdout);
  t.equal(
    out[0],
    'PASS go http: GET /proxy/go/example.com/!hub/demo/@latest: 200, Version v1.1.0',
    'the module path is escaped',
  );
  if (hasGo)
    t.equal(
      out[1],
      `PASS go tool: go mod download example.com/Hub/demo@v1.0.0 with GOPROXY=${goHub.url}/proxy/go only: ok`,
      'the real go',
    );
  else t.equal(out[1], 'SKIP go tool: go not installed');

  const missing = await goCli(['--go-module', 'example.com/nothing/here@v1.0.0']);
  t.equal(missing.code, 1);
  t.match(missing.stdout, /^FAIL go http: GET \/proxy\/go\/example\.com\/nothing\/here\/@latest: HTTP 404/m);
  if (hasGo)
    t.match(
      missing.stdout,
      /^FAIL go tool: go mod download example\.com\/nothing\/here@v1\.0\.0: .*404/m,
      "go's own error",
    );

  const noGo = await goCli(['--go-module', 'example.com/Hub/demo@v1.0.0'], { PATH: NO_TOOLS });
  t.equal(noGo.code, 0);
  t.match(noGo.stdout, /^SKIP go tool: go not installed$/m);
});

type Answer = { status?: number; type?: string; body: string | Buffer };

/** A stand-in for a hub that serves what a real one never does; it records the authorization header. */
async function standIn(
  t: Test,
  routes: Record<string, Answer>,
): Promise<{ url: string; auth: Array<string | undefined> }> {
  const auth: Array<string | undefined> = [];
  const server = http.createServer((req, res) => {
    auth.push(req.headers.authorization);
    const a = routes[new URL(req.url ?? '/', 'http://x').pathname] ?? {
      status: 404,
      type: 'application/json',
      body: '{"error":{"code":"not_found","message":"no such thing"}}',
    };
    res.writeHead(a.status ?? 200, { 'content-type': a.type ?? 'application/json' });
    res.end(a.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, auth };
}

t.test('content is checked, not only the status: each kind fails on a well-formed 200 that is wrong', async (t) => {
  const html = { type: 'text/html', body: '<html><body>Service Unavailable</body></html>' };
  const s = await standIn(t, {
    '/proxy/n/x': { type: 'application/octet-stream', body: ASSET },
    '/proxy/n/x/1.0.0/tarball': html,
    '/proxy/c/registry/config.json': { body: '{"api":"x"}' },
    '/proxy/g/example.com/m/@latest': { body: '{"Time":"2020-01-01T00:00:00Z"}' },
    '/proxy/gh/o/r/releases/download/v1/a.tar.gz': html,
    '/proxy/v/p.e/1.0.0/vsix': { status: 503, type: 'text/plain', body: 'busy' },
    '/proxy/m/maven2/g/a/maven-metadata.xml': { type: 'text/html', body: '<html><body>hi</body></html>' },
    '/proxy/m/maven2/g/a/1/a-1.pom': { type: 'application/xml', body: 'this is not XML' },
    '/proxy/t/v1/providers/ns/p/versions': { body: '{"versions":[]}' },
    '/proxy/t/v1/providers/ns/p/1.0.0/download/linux/amd64': { body: '{"filename":"x.zip"}' },
    '/proxy/r/api/v1/gems/x.json': { body: '{"name":"y"}' },
    '/proxy/r/gems/x-1.0.0.gem': { type: 'application/octet-stream', body: Buffer.alloc(2048, 7) },
    '/proxy/u/nuget/v3/index.json': { body: '{"version":"2.0.0","resources":[]}' },
  });
  const r = await runHub(
    [
      'check',
      '--url',
      s.url,
      '--token',
      'tok',
      '--json',
      '--npm',
      'n',
      '--npm-package',
      'x@1.0.0',
      '--cargo',
      'c',
      '--go',
      'g',
      '--go-module',
      'example.com/m@v1.0.0',
      '--github',
      'gh',
      '--github-asset',
      'o/r/v1/a.tar.gz',
      '--openvsx',
      'v',
      '--openvsx-extension',
      'p.e@1.0.0',
      '--maven',
      'm',
      '--maven-artifact',
      'g:a:1',
      '--terraform',
      't',
      '--terraform-provider',
      'ns/p@1.0.0',
      '--rubygems',
      'r',
      '--rubygems-gem',
      'x@1.0.0',
      '--nuget',
      'u',
    ],
    { PATH: NO_TOOLS },
  );
  t.equal(r.code, 1);
  const checks = json(r).checks as Array<{ registry: string; check: string; result: string; detail: string }>;
  const of = (registry: string, check: string) => checks.find((c) => c.registry === registry && c.check === check)!;
  t.match(of('n', 'http'), {
    result: 'fail',
    detail:
      'GET /proxy/n/x/1.0.0/tarball: 200 but not gzip data (text/html, 45 bytes, starting "<html><body>Service Unavailable</body></")',
  });
  t.match(of('n', 'tool'), { result: 'fail', detail: /^GET \/proxy\/n\/x: 200 but not a JSON object/ });
  t.match(of('c', 'http'), {
    result: 'fail',
    detail: 'GET /proxy/c/registry/config.json: no "dl" in the index configuration',
  });
  t.match(of('c', 'tool'), { result: 'skip', detail: 'cargo not installed' });
  t.match(of('g', 'http'), {
    result: 'fail',
    detail: 'GET /proxy/g/example.com/m/@latest: no "Version" in the answer',
  });
  t.match(of('gh', 'http'), { result: 'fail', detail: /200 but not gzip data \(text\/html/ });
  t.match(of('v', 'http'), { result: 'fail', detail: 'GET /proxy/v/p.e/1.0.0/vsix: HTTP 503: busy' });
  t.match(of('v', 'tool'), { result: 'fail', detail: 'GET /proxy/v/p.e/1.0.0/vsix: HTTP 503: busy' });
  t.match(of('m', 'http'), {
    result: 'fail',
    detail: 'GET /proxy/m/maven2/g/a/maven-metadata.xml: the root element is <html>, not <metadata>',
  });
  t.match(of('m', 'tool'), {
    result: 'fail',
    detail: /^GET \/proxy\/m\/maven2\/g\/a\/1\/a-1\.pom: 200 but not an XML document/,
  });
  t.match(of('t', 'http'), { result: 'fail', detail: 'GET /proxy/t/v1/providers/ns/p/versions: "versions" is empty' });
  t.match(of('t', 'tool'), {
    result: 'fail',
    detail: 'GET /proxy/t/v1/providers/ns/p/1.0.0/download/linux/amd64: no "download_url" in the download document',
  });
  t.match(of('r', 'http'), { result: 'fail', detail: 'GET /proxy/r/api/v1/gems/x.json: "name" is "y", not "x"' });
  t.match(of('r', 'tool'), {
    result: 'fail',
    detail: /^GET \/proxy\/r\/gems\/x-1\.0\.0\.gem: 200 but not a POSIX tar: tar header has a bad checksum/,
  });
  t.match(of('u', 'http'), {
    result: 'fail',
    detail: 'GET /proxy/u/nuget/v3/index.json: "version" is "2.0.0", not "3.0.0"',
  });
  t.match(of('u', 'tool'), { result: 'fail', detail: 'the service index names no PackageBaseAddress/3.0.0 resource' });
  t.ok(s.auth.length > 0 && s.auth.every((a) => a === 'Bearer tok'), 'the token is sent as a Bearer token');
});

t.test('bad usage exits 2, names the help, and sends nothing', async (t) => {
  const env = { HUB_URL: `http://127.0.0.1:${await closedPort()}` };
  const cases: Array<[string[], RegExp]> = [
    [[], /name at least one registry to check: --npm NAME, --cargo NAME/],
    [['--npm-package', 'lodash@4.17.21'], /--npm-package needs --npm NAME/],
    [
      ['--npm', 'npm', '--npm-package', 'lodash'],
      /--npm-package must be name@version, such as lodash@4\.17\.21, not "lodash"/,
    ],
    [
      ['--go', 'go', '--go-module', 'rsc.io/quote@1.5.2'],
      /--go-module must be path@version, such as rsc\.io\/quote@v1\.5\.2/,
    ],
    [['--github', 'gh', '--github-asset', 'owner/repo/asset'], /--github-asset must be a release asset/],
    [['--maven', 'm', '--maven-artifact', 'junit:junit'], /--maven-artifact must be a Maven coordinate/],
    [['--maven', 'm', '--maven-artifact', '..:x:1'], /--maven-artifact must be a Maven coordinate/],
    [['--terraform', 't', '--terraform-provider', 'hashicorp/null'], /--terraform-provider must be a provider/],
    [
      ['--openvsx', 'v', '--openvsx-extension', 'publisher@1.0.0'],
      /--openvsx-extension must be an extension and version/,
    ],
    [
      ['--vscode-marketplace', 'v', '--vscode-marketplace-extension', 'a.b'],
      /--vscode-marketplace-extension must be an extension/,
    ],
    [['--rubygems', 'r', '--rubygems-gem', 'rake'], /--rubygems-gem must be name@version/],
    [['--nuget', 'n', '--nuget-package', 'bad id@1.0.0'], /--nuget-package must be id@version/],
    [['--cargo', 'c', '--cargo-crate', 'serde@'], /--cargo-crate must be name@version/],
    [['--npm', ''], /--npm needs a value/],
    [['--npm'], /argument missing/],
    [['--cpan', 'p'], /Unknown option '--cpan'/],
    [['--pypi', 'p', '--pypi-project', 'six'], /--pypi-project must be name@version/],
    [['--npm', 'npm', 'extra'], /Unexpected argument 'extra'/],
    [['--npm', 'npm', '--url', 'ftp://hub'], /must be an http or https URL/],
  ];
  await expectUsageErrors(
    t,
    cases.map(([args, message]) => [['check', ...args], message, 'check'] as const),
    env,
  );
  const help = await runHub(['check', '--help']);
  t.equal(help.code, 0);
  t.match(
    help.stdout,
    /--url URL {10}the hub \(default: \$HUB_URL, else http:\/\/localhost:8080\)/,
    'the default base URL of `hub check`',
  );
  for (const d of [
    'lodash@4.17.21',
    'cfg-if@1.0.0',
    'rsc.io/quote@v1.5.2',
    'junit:junit:4.13.2',
    'hashicorp/null@3.2.2/linux_amd64',
    'rake@13.2.1',
    'newtonsoft.json@13.0.3',
  ])
    t.match(help.stdout, `default ${d}`);
});

t.test('content helpers: tar headers and the XML root element', async (t) => {
  const gem = fs.readFileSync(path.join(fixtures('kind-rubygems'), 'gems/hubdemo-1.0.0.gem'));
  const GEM_ENTRIES = ['metadata.gz', 'data.tar.gz', 'checksums.yaml.gz'];
  t.same(await tarEntries(gem), GEM_ENTRIES, 'the entries of a real gem');
  await t.rejects(tarEntries(gem.subarray(0, 700)), /truncated/, 'a truncated archive');
  // Long names: the ustar prefix field, a PAX path record, a GNU long-name entry.
  const pax = (k: string, v: string) => {
    const rec = ` ${k}=${v}\n`;
    let n = rec.length + 2;
    while (`${n}${rec}`.length !== n) n = `${n}${rec}`.length;
    return `${n}${rec}`;
  };
  const built = Buffer.concat([
    tarEntry('data.tar.gz', 'x', { prefix: 'some/deep/folder' }),
    tarEntry('PaxHeader', pax('path', 'a-very-long/metadata.gz'), { type: 'x' }),
    tarEntry('short', 'y'),
    tarEntry('././@LongLink', 'gnu/long/name.txt\0', { type: 'L' }),
    tarEntry('trunc', 'z'),
    Buffer.alloc(1024),
  ]);
  t.same(await tarEntries(built), ['some/deep/folder/data.tar.gz', 'a-very-long/metadata.gz', 'gnu/long/name.txt']);
  t.same(
    await tarEntries(Buffer.concat([tarEntry('gnu', 'x', { magic: 'ustar  \0' }), Buffer.alloc(1024)])),
    ['gnu'],
    'the old GNU magic',
  );
  await t.rejects(
    tarEntries(Buffer.concat([tarEntry('v7', 'x', { magic: '\0'.repeat(8) }), Buffer.alloc(1024)])),
    /not a POSIX \(ustar\) or GNU header/,
    'a pre-POSIX header',
  );
  const changed = tarEntry('x', 'x');
  changed.write('y', 0, 'latin1');
  await t.rejects(tarEntries(changed), /bad checksum/, 'a header changed after its checksum');
  await t.rejects(tarEntries(Buffer.alloc(100)), /truncated/, 'shorter than one tar header');
  await t.rejects(tarEntries(Buffer.alloc(1024, 0x41)), /bad checksum/);
  t.equal(xmlRoot('<?xml version="1.0"?>\n<!-- c -->\n<metadata modelVersion="1.1.0"><a/></metadata>\n'), 'metadata');
  t.equal(xmlRoot('\uFEFF<project xmlns="urn:pom">\n</project>'), 'project');
  t.equal(xmlRoot('<p:project xmlns:p="x"></p:project>'), 'project', 'a prefixed root');
  t.equal(xmlRoot('<metadata/>'), 'metadata');
  t.equal(xmlRoot('<metadata><versions/></metadata>\n<!-- generated -->\n'), 'metadata', 'a comment after the root');
  t.equal(xmlRoot('<metadata></metadata><extra/>'), undefined, 'a second element after the root');
  t.equal(xmlRoot('<metadata><versions>'), undefined, 'never closed');
  t.equal(xmlRoot('{"metadata":1}'), undefined);
  t.equal(xmlRoot('  <?xml version="1.0"?><metadata/>'), 'metadata', 'space before the declaration');
  t.equal(xmlRoot('<metadata>&undefined;</metadata>'), undefined, 'an entity nobody declared');
  // A DOCTYPE is refused before its DTD is looked at: no entity expansion, no external subset.
  t.throws(() => xmlRoot('<!DOCTYPE html><html></html>'), { name: 'DoctypeRefused' });
  const laughs =
    '<?xml version="1.0"?><!DOCTYPE metadata [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><metadata>&b;</metadata>';
  t.throws(() => xmlRoot(laughs), { name: 'DoctypeRefused' }, 'entity expansion');
  t.throws(
    () => xmlRoot('<!DOCTYPE project SYSTEM "file:///etc/passwd"><project/>'),
    { name: 'DoctypeRefused' },
    'an external subset',
  );
  const kit = checkKit(adminClient({ url: 'http://127.0.0.1:9' }, {}, 'check'), 'm', {});
  const answer = (body: string) => ({
    what: '/proxy/m/x.xml',
    status: 200,
    type: 'application/xml',
    body: Buffer.from(body),
  });
  t.throws(
    () => kit.xmlWithRoot(answer(laughs), 'metadata'),
    /^GET \/proxy\/m\/x\.xml: 200 but holds a DOCTYPE, which hub check refuses \(application\/xml, \d+ bytes/,
    'the check fails and says why',
  );
  t.equal(kit.xmlWithRoot(answer('<metadata/>'), 'metadata'), '<metadata>');
});

/** One ustar entry: a header with a correct checksum, then the body padded to 512 bytes. */
function tarEntry(name: string, body: string, o: { type?: string; prefix?: string; magic?: string } = {}): Buffer {
  const data = Buffer.from(body);
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, 'utf8');
  h.write('0000644\0', 100, 'latin1');
  h.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
  h.write(o.type ?? '0', 156, 'latin1');
  h.write(o.magic ?? 'ustar\u0000' + '00', 257, 'latin1'); // magic and version
  if (o.prefix) h.write(o.prefix, 345, 155, 'utf8');
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return Buffer.concat([h, data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
}
