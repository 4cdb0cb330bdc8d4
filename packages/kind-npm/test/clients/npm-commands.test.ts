import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import {
  chainHandlers,
  npmFixtureHandler,
  pathOf,
  rawRequest,
  startFixtureUpstream,
  startTestHub,
  missingClient,
} from '@hub/testkit';
import publishing from '@hub/publishing';
import npm from '../../src/index.js';
import { FIXTURES } from '../setup.js';
import { hasNpm, npmEnv, send, type NpmEnv, type NpmResult } from '../npm-env.js';

/** Issue 26: npm's everyday commands against hub, with the real npm client (decision 0042). */
const noNpm = hasNpm ? false : missingClient('npm');

const ADVISORY = {
  id: 1,
  url: 'http://advisories.invalid/1',
  title: 'Prototype pollution in hubdep',
  severity: 'high',
  vulnerable_versions: '<1.0.1',
  cwe: [],
  cvss: { score: 0, vectorString: null },
};

interface Upstream {
  /** What the upstream's bulk audit answers: null for none (404), else the report. */
  audit: Record<string, unknown[]> | null;
  /** The names each audit query asked about. */
  audited: string[][];
}

/** The fixture npm upstream, with a bulk audit and a search of its own. */
async function start(t: Test, mode: 'proxy' | 'hybrid' = 'proxy') {
  const state: Upstream = { audit: null, audited: [] };
  const upstream = await startFixtureUpstream({
    handler: chainHandlers(async (req: IncomingMessage, res: ServerResponse) => {
      const p = pathOf(req.url);
      if (req.method === 'POST' && p === '/-/npm/v1/security/advisories/bulk' && state.audit) {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const raw = Buffer.concat(chunks);
        state.audited.push(
          Object.keys(
            JSON.parse((req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')) as object,
          ),
        );
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(state.audit));
        return true;
      }
      if (req.method === 'GET' && p === '/-/v1/search') {
        const pkg = {
          name: 'hubdemo',
          version: '1.1.0',
          description: 'the upstream demo',
          date: '2024-01-01T00:00:00.000Z',
          links: {},
          publisher: { username: 'upstreamer' },
          maintainers: [],
        };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            objects: [
              {
                package: pkg,
                score: { final: 1, detail: { quality: 1, popularity: 1, maintenance: 1 } },
                searchScore: 1,
              },
            ],
            total: 1,
            time: new Date().toUTCString(),
          }),
        );
        return true;
      }
      return false;
    }, npmFixtureHandler(FIXTURES)),
  });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [npm, publishing],
    registries: [{ name: 'npm', type: 'npm', mode, upstream: upstream.url }],
  });
  t.teardown(() => hub.close());
  const registry = `${hub.url}/proxy/npm/`;
  return {
    hub,
    upstream,
    state,
    registry,
    reader: await hub.token('dev', { roles: ['reader'] }),
    publisher: await hub.token('ci', { roles: ['publisher'] }),
  };
}

/** npm with audit on, as a developer runs it (the shared environment turns it off). */
const withAudit = (p: NpmEnv, args: string[]) => p.npm([...args, '--audit=true']);

/** `npm <args>` in the env, with `input` on its standard input (npm login prompts). */
function npmWithInput(p: NpmEnv, args: string[], input: string): Promise<NpmResult> {
  return new Promise((resolve) => {
    const env = {
      PATH: process.env.PATH,
      HOME: p.dir,
      npm_config_userconfig: path.join(p.dir, 'npmrc'),
      npm_config_cache: path.join(p.dir, 'cache'),
      npm_config_update_notifier: 'false',
      npm_config_fetch_retries: '0',
    };
    const child = spawn('npm', args, { cwd: path.join(p.dir, 'app'), env, timeout: 120_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input);
  });
}

t.test(
  'a default npm install sends its audit without a refusal; npm audit exits 0 on an upstream without audits',
  { skip: noNpm },
  async (t) => {
    const s = await start(t);
    const p = npmEnv(t, s.registry, s.reader);
    const install = await withAudit(p, ['install', 'hubdemo@1.1.0']);
    t.equal(install.code, 0, install.stderr);
    t.notMatch(install.stderr, /not allowed|405|audit endpoint/i, 'no "POST is not allowed here", no audit warning');
    t.ok(
      s.upstream.count((r) => r.method === 'POST' && r.url === '/-/npm/v1/security/advisories/bulk') >= 1,
      'the audit was asked of the upstream',
    );
    const audit = await p.npm(['audit']);
    t.equal(audit.code, 0, `npm audit: ${audit.stdout}${audit.stderr}`);
    t.match(audit.stdout, /found 0 vulnerabilities/);
  },
);

t.test('npm audit reports what the upstream audit reports', { skip: noNpm }, async (t) => {
  const s = await start(t);
  const p = npmEnv(t, s.registry, s.reader);
  t.equal((await p.npm(['install', 'hubdemo@1.1.0'])).code, 0);
  s.state.audit = { hubdep: [ADVISORY] };
  const audit = await p.npm(['audit']);
  t.equal(audit.code, 1, 'a vulnerability fails npm audit, as it should');
  t.match(audit.stdout, /Prototype pollution in hubdep/);
  t.same(s.state.audited.at(-1)?.sort(), ['hubdemo', 'hubdep'], 'the query named the installed packages');
  s.state.audit = {};
  t.equal((await p.npm(['audit'])).code, 0, 'an empty upstream report: exit 0');
});

t.test('a hybrid registry never sends the names published to it to the upstream audit', { skip: noNpm }, async (t) => {
  const s = await start(t, 'hybrid');
  s.state.audit = {};
  const p = npmEnv(t, s.registry, s.publisher);
  t.equal(
    (await p.npm(['publish'], p.makePackage({ name: 'hubmine', version: '1.0.0' }))).code,
    0,
    'published hubmine',
  );
  const res = await send(`${s.hub.url}/proxy/npm/-/npm/v1/security/advisories/bulk`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.reader}`, 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ hubmine: ['1.0.0'], hubdep: ['1.0.0'] })),
  });
  t.equal(res.status, 200);
  t.same(s.state.audited.at(-1), ['hubdep'], 'only the upstream names were sent');
});

t.test('the audit request body is bounded; an upstream failure is an empty report', async (t) => {
  const s = await start(t);
  const url = `${s.hub.url}/proxy/npm/-/npm/v1/security/advisories/bulk`;
  const headers = { authorization: `Bearer ${s.reader}`, 'content-type': 'application/json' };
  const big = await send(url, { method: 'POST', headers, body: Buffer.alloc(10 * 1024 * 1024 + 1, 0x20) });
  t.equal(big.status, 413, 'over 10 MiB: 413');
  s.upstream.fault('/-/npm/v1/security/', { type: 'status', status: 500 });
  s.state.audit = { hubdep: [ADVISORY] };
  const failed = await send(url, { method: 'POST', headers, body: Buffer.from('{"hubdep":["1.0.0"]}') });
  t.equal(failed.status, 200);
  t.same(JSON.parse(failed.body.toString()), {}, 'an upstream 500: a valid empty report');
  const quick = await send(`${s.hub.url}/proxy/npm/-/npm/v1/security/audits/quick`, {
    method: 'POST',
    headers,
    body: Buffer.from('{"name":"app","requires":{},"dependencies":{}}'),
  });
  t.equal(quick.status, 200, 'the quick audit route too');
  t.match(
    JSON.parse(quick.body.toString()),
    { advisories: {}, metadata: { vulnerabilities: { high: 0, critical: 0 } } },
    "in npm 6's format, which pnpm reads",
  );
});

t.test('npm ping, npm whoami, and whoami without a token', { skip: noNpm }, async (t) => {
  const s = await start(t);
  const p = npmEnv(t, s.registry, s.reader);
  const ping = await p.npm(['ping']);
  t.equal(ping.code, 0, ping.stderr);
  t.match(ping.stderr, /PONG/);
  const who = await p.npm(['whoami']);
  t.equal(who.code, 0, who.stderr);
  t.equal(who.stdout.trim(), 'dev', "the token's user");
  const anonymous = await rawRequest(`${s.hub.url}/proxy/npm/-/whoami`);
  t.equal(anonymous.status, 401);
});

t.test('npm search finds a name published here and one from the upstream', { skip: noNpm }, async (t) => {
  const s = await start(t, 'hybrid');
  const ci = npmEnv(t, s.registry, s.publisher);
  t.equal(
    (await ci.npm(['publish'], ci.makePackage({ name: 'hublocal', version: '2.0.0', description: 'made here' }))).code,
    0,
  );
  const dev = npmEnv(t, s.registry, s.reader);
  const found = await dev.npm(['search', 'hub']);
  t.equal(found.code, 0, found.stderr);
  t.match(found.stdout, /hublocal/, 'the local name');
  t.match(found.stdout, /made here/, 'with its description');
  t.match(found.stdout, /hubdemo/, "the upstream's");
  const json = JSON.parse((await dev.npm(['search', '--json', 'hublocal'])).stdout) as Array<{
    name: string;
    version: string;
  }>;
  t.match(json, [{ name: 'hublocal', version: '2.0.0' }]);
  // An unlisted version disappears from search too.
  await s.hub.hub.services.unlisting.add({ registry: 'npm', package_name: 'hubdemo', version: '1.1.0' }, 'admin');
  const after = await rawRequest(`${s.hub.url}/proxy/npm/-/v1/search?text=hub`, {
    headers: { authorization: `Bearer ${s.reader}` },
  });
  t.same(
    (JSON.parse(after.body.toString()) as { objects: Array<{ package: { name: string } }> }).objects.map(
      (o) => o.package.name,
    ),
    ['hublocal'],
    'the upstream result naming an unlisted version is dropped',
  );
});

t.test('npm login is refused, saying how to get a token', { skip: noNpm }, async (t) => {
  const s = await start(t, 'hybrid');
  const p = npmEnv(t, s.registry, null);
  const login = await npmWithInput(p, ['login'], 'someone\nsecret\n');
  t.not(login.code, 0, 'npm login fails');
  t.match(login.stderr, /hub token create/, `npm shows how to get a token: ${login.stderr}`);
  t.match(
    login.stderr,
    `${s.registry.replace(/^http:/, '')}:_authToken=<token>`,
    'and the .npmrc line for this registry',
  );
  const put = await send(`${s.hub.url}/proxy/npm/-/user/org.couchdb.user:someone`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: Buffer.from('{"name":"someone","password":"x"}'),
  });
  t.equal(put.status, 405);
  t.match(JSON.parse(put.body.toString()), { error: { code: 'method_not_allowed', message: /hub token create/ } });
});

t.test("npm's commands hub does not serve get a 404 that says so, not a refusal of `-` as a name", async (t) => {
  const s = await start(t);
  const logout = await send(`${s.hub.url}/proxy/npm/-/user/token/abc`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${s.reader}` },
  });
  t.equal(logout.status, 404);
  t.match(JSON.parse(logout.body.toString()), {
    error: {
      code: 'not_found',
      message: "hub does not serve npm's /-/user/token/… requests (see the npm kind's README for what it serves)",
    },
  });
  const tags = await rawRequest(`${s.hub.url}/proxy/npm/-/package/hubdemo/dist-tags`, {
    headers: { authorization: `Bearer ${s.reader}` },
  });
  t.equal(tags.status, 200, 'dist-tags is still served');
});
