/** Issue 29: `npm audit` through hub shows hub's flags, merged with the upstream's advisories (decision 0060). */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import npm from '@hub/kind-npm';
import {
  chainHandlers,
  missingClient,
  npmEnv,
  npmFixtureHandler,
  pathOf,
  signFlagRequest,
  startFixtureUpstream,
  startTestHub,
} from '@hub/testkit';
import flags from '../../src/index.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../../kind-npm/test/fixtures/upstream/', import.meta.url));
const noNpm = (await promisify(execFile)('npm', ['--version']).then(
  () => true,
  () => false,
))
  ? false
  : missingClient('npm');

/** pnpm from this repository's dev dependencies (beside yarn, as kind-npm's client tests find it). */
const PNPM = (() => {
  try {
    const file = join(
      dirname(createRequire(import.meta.url).resolve('yarn/package.json')),
      '..',
      'pnpm',
      'bin',
      'pnpm.cjs',
    );
    return existsSync(file) ? file : null;
  } catch {
    return null;
  }
})();

/** The upstream's own advisory, on the other package of the project. */
const UPSTREAM_ADVISORY = {
  id: 1096,
  url: 'http://advisories.invalid/1096',
  title: 'ReDoS in hubdemo',
  severity: 'low',
  vulnerable_versions: '<2.0.0',
  cwe: [],
  cvss: { score: 0, vectorString: null },
};
const FLAG = {
  external_id: 'MAL-7',
  registry: 'npm',
  package_name: 'hubdep',
  version: '1.0.0',
  kind: 'malware',
  effect: 'hard_block',
  summary: 'exfiltrates CI tokens',
};

/** A hub with npm and flags before the kind-npm fixtures, whose bulk audit answers `audit` (a status, or the upstream advisory). */
async function start(t: Test, audit: { status: number }) {
  const upstream = await startFixtureUpstream({
    handler: chainHandlers(async (req: IncomingMessage, res: ServerResponse) => {
      if (req.method !== 'POST' || !pathOf(req.url).startsWith('/-/npm/v1/security/')) return false;
      for await (const _ of req);
      if (audit.status !== 200) res.writeHead(audit.status).end();
      else
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ hubdemo: [UPSTREAM_ADVISORY] }));
      return true;
    }, npmFixtureHandler(NPM_FIXTURES)),
  });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [npm, flags],
    registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
    config: {
      auth: { anonymous: ['source:read'] },
      flag_sources: [{ name: 'scanner', secret: 'scanner-secret' }] as never,
    },
  });
  t.teardown(() => hub.close());
  const p = npmEnv(t, `${hub.url}/proxy/npm/`, null);
  const flag = async () => {
    const path = '/api/v1/flags/scanner';
    const body = JSON.stringify({ flags: [FLAG] });
    const pushed = await fetch(`${hub.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signFlagRequest({ secret: 'scanner-secret', method: 'POST', path, body }),
      },
      body,
    });
    t.equal(pushed.status, 200, 'the flag is pushed');
  };
  return { hub, upstream, p, flag, incident: `${hub.url}/console/incident?source=scanner&flag=MAL-7` };
}

/** A project that installed hubdemo 1.1.0 (and its dependency hubdep 1.0.0) with a lockfile, then the security team flags hubdep 1.0.0. */
async function flaggedProject(t: Test, s: Awaited<ReturnType<typeof start>>): Promise<void> {
  const install = await s.p.npm(['install', 'hubdemo@1.1.0']);
  t.equal(install.code, 0, `npm install: ${install.stderr}`);
  const lock = JSON.parse(readFileSync(join(s.p.dir, 'app', 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version: string }>;
  };
  t.equal(lock.packages['node_modules/hubdep']?.version, '1.0.0', 'the lockfile names hubdep 1.0.0');
  await s.flag();
}

/** A raw POST (fetch), for the routes' own answers. */
const post = (url: string, init: { method: 'POST'; headers: Record<string, string>; body: Buffer }) => fetch(url, init);

/** The POSTs the upstream got on its audit routes. */
const audits = (s: Awaited<ReturnType<typeof start>>) =>
  s.upstream.count((r) => r.method === 'POST' && r.url.startsWith('/-/npm/v1/security/'));

t.test("npm audit prints hub's flag, merged with the upstream's own advisory", { skip: noNpm }, async (t) => {
  const audit = { status: 200 };
  const s = await start(t, audit);
  await flaggedProject(t, s);
  const text = await s.p.npm(['audit']);
  t.equal(text.code, 1, `vulnerabilities fail npm audit: ${text.stderr}`);
  t.match(
    text.stdout,
    /hubdep {2}\S+\nSeverity: critical\nexfiltrates CI tokens - (\S+)\n/,
    'the flag: hard_block is critical, the summary is the title',
  );
  t.equal(/exfiltrates CI tokens - (\S+)/.exec(text.stdout)?.[1], s.incident, "with the console's incident page");
  t.match(text.stdout, /ReDoS in hubdemo - http:\/\/advisories\.invalid\/1096/, "and the upstream's advisory");
  const json = JSON.parse((await s.p.npm(['audit', '--json'])).stdout) as {
    vulnerabilities: Record<string, { severity: string; via: unknown[] }>;
  };
  t.match(json.vulnerabilities.hubdep, {
    severity: 'critical',
    via: [
      {
        source: 'hub:scanner:MAL-7',
        name: 'hubdep',
        title: 'exfiltrates CI tokens',
        url: s.incident,
        severity: 'critical',
        range: '1.0.0',
      },
    ],
  });
  t.ok(
    json.vulnerabilities.hubdemo?.via.some((v) => (v as { source?: unknown }).source === 1096),
    "hubdemo's entry holds the upstream's advisory (and hubdep, through which the flag reaches it)",
  );
});

t.test(
  "with the upstream's audit answering 500, npm audit still shows the flag, and the refusal is remembered",
  { skip: noNpm },
  async (t) => {
    const audit = { status: 200 };
    const s = await start(t, audit);
    await flaggedProject(t, s);
    audit.status = 500;
    const text = await s.p.npm(['audit']);
    t.equal(text.code, 1, `the flag is a vulnerability: ${text.stderr}`);
    t.notMatch(text.stderr, /audit endpoint returned an error|ERR/, 'no audit error');
    t.match(text.stdout, /exfiltrates CI tokens/);
    t.notMatch(text.stdout, /ReDoS/, "the upstream's advisory is not there");
    const asked = audits(s);
    const again = JSON.parse((await s.p.npm(['audit', '--json'])).stdout) as {
      vulnerabilities: Record<string, unknown>;
    };
    t.match(again.vulnerabilities.hubdep, { via: [{ source: 'hub:scanner:MAL-7' }] }, 'npm audit --json: the flag');
    t.notMatch(JSON.stringify(again), /ReDoS/, 'hubdemo is listed only as depending on hubdep');
    t.equal(audits(s), asked, 'the refusal is remembered: the upstream is not asked again within the minute');
  },
);

t.test(
  'the quick audit (npm 6 tree) carries the flag with its findings; gzip bodies; an upstream without audits',
  async (t) => {
    const s = await start(t, { status: 404 });
    await s.flag();
    const tree = {
      name: 'app',
      version: '1.0.0',
      requires: { hubdemo: '1.1.0' },
      dependencies: {
        hubdemo: { version: '1.1.0', requires: { hubdep: '^1.0.0' }, dependencies: { hubdep: { version: '1.0.0' } } },
      },
    };
    const quick = await post(`${s.hub.url}/proxy/npm/-/npm/v1/security/audits/quick`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify(tree)),
    });
    t.equal(quick.status, 200);
    const report = JSON.parse(await quick.text());
    t.match(report.advisories['hub:scanner:MAL-7'], {
      module_name: 'hubdep',
      severity: 'critical',
      vulnerable_versions: '1.0.0',
      title: 'exfiltrates CI tokens',
      url: s.incident,
      findings: [{ version: '1.0.0', paths: ['hubdemo>hubdep'] }],
    });
    t.equal(report.metadata.vulnerabilities.critical, 1);
    const bulk = await post(`${s.hub.url}/proxy/npm/-/npm/v1/security/advisories/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify({ hubdep: ['1.0.1'], hubdemo: ['1.1.0'] })),
    });
    t.same(JSON.parse(await bulk.text()), {}, 'a version the flag does not cover: no advisory');
    const bomb = await post(`${s.hub.url}/proxy/npm/-/npm/v1/security/advisories/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(Buffer.alloc(11 * 1024 * 1024, 0x20)),
    });
    t.equal(bomb.status, 400, 'a body that inflates past 10 MiB is refused');
  },
);

t.test(
  "pnpm audit (npm 6's quick audit) shows the flag, the upstream having no audit",
  { skip: PNPM ? false : missingClient('pnpm', 'npm ci installs it') },
  async (t) => {
    const s = await start(t, { status: 404 });
    const dir = mkdtempSync(join(tmpdir(), 'hub-pnpm-audit-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const app = join(dir, 'app');
    const pnpm = (args: string[]) =>
      new Promise<{ code: number; out: string }>((resolve) =>
        execFile(
          process.execPath,
          [PNPM!, ...args],
          {
            cwd: app,
            env: {
              PATH: process.env.PATH,
              HOME: dir,
              XDG_CONFIG_HOME: join(dir, '.config'),
              COREPACK_ENABLE_NETWORK: '0',
            },
            timeout: 180_000,
          },
          (err, stdout, stderr) =>
            resolve({ code: err ? Number((err as { code?: unknown }).code) || 1 : 0, out: `${stdout}${stderr}` }),
        ),
      );
    mkdirSync(app);
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'app', version: '1.0.0', private: true, dependencies: { hubdemo: '1.1.0' } }),
    );
    writeFileSync(join(app, '.npmrc'), `registry=${s.hub.url}/proxy/npm/\nupdate-notifier=false\n`);
    const install = await pnpm([
      'install',
      '--no-frozen-lockfile',
      '--store-dir',
      join(dir, 'store'),
      '--reporter',
      'append-only',
    ]);
    t.equal(install.code, 0, `pnpm install: ${install.out}`);
    t.match(readFileSync(join(app, 'pnpm-lock.yaml'), 'utf8'), /hubdep@1\.0\.0/, 'the lockfile names hubdep 1.0.0');
    await s.flag();
    const audit = await pnpm(['audit']);
    t.equal(audit.code, 1, `a vulnerability fails pnpm audit: ${audit.out}`);
    t.match(audit.out, /critical\s*│\s*exfiltrates CI tokens/, 'the flag, critical, titled by its summary');
    t.ok(audit.out.replace(/[\s│]/g, '').includes(s.incident), 'with its incident page (the table wraps it)');
    t.match(audit.out, /Paths\s*│\s*\.>hubdemo>hubdep/, 'and the path to it');
  },
);
