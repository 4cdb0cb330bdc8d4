/**
 * Hot reload (issue 29, decision 0057): a running hub re-reads its hub.toml through the admin API and `hub
 * reload`. Registries are added, changed and removed while a slow download through a removed one finishes;
 * a broken file and a restart-only key are refused by name while the old configuration serves; each reload
 * is an audit row with secrets masked, a `config_reloaded` event and a metric.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { parse, stringify } from 'smol-toml';
import admin from '@hub/admin';
import flags from '@hub/flags';
import npm from '@hub/kind-npm';
import { filesKind, npmFixtureHandler, signFlagRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { runHub } from './run-hub.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));
const FIRST_SECRET = 'osv-first-secret-3d8f1a';
const SECOND_SECRET = 'osv-second-secret-9c2e77';
const UPSTREAM_TOKEN = 'upstream-token-b41f0c';

type Toml = Record<string, any>;

/** A GET read to its end and hashed; never throws. */
function download(url: string): Promise<{ status: number; sha256: string; complete: boolean }> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent: false }, (res) => {
      const hash = crypto.createHash('sha256');
      res.on('data', (c: Buffer) => hash.update(c));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, sha256: '', complete: false }));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, sha256: hash.digest('hex'), complete: res.complete }));
    });
    req.on('error', () => resolve({ status: 0, sha256: '', complete: false }));
  });
}

const status = async (url: string) => {
  const r = await fetch(url);
  await r.arrayBuffer();
  return r.status;
};

/** Two npm upstreams (a, b) and a files upstream with a slow file; a hub with npm and files registries, the admin API and flags. */
async function setup(t: Test) {
  const dir = t.testdir({ up: { pkg: { '1.0.0': { 'small.txt': 'small file' } } }, hub: {} });
  const slow = crypto.randomBytes(256 * 1024);
  fs.writeFileSync(path.join(dir, 'up', 'pkg', '1.0.0', 'slow.bin'), slow);
  const a = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
  const b = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
  const files = await startFixtureUpstream({ root: path.join(dir, 'up') });
  t.teardown(() => Promise.all([a.close(), b.close(), files.close()]));
  const hub = await startTestHub({
    dir: path.join(dir, 'hub'),
    plugins: [npm, filesKind, admin, flags],
    registries: [
      { name: 'npm', type: 'npm', upstream: a.url },
      { name: 'files', type: 'files', upstream: files.url },
    ],
    config: { auth: { anonymous: ['source:read'] }, flag_sources: [{ name: 'osv', secret: FIRST_SECRET }] as never },
  });
  t.teardown(() => hub.close());
  const file = path.join(dir, 'hub', 'hub.toml');
  const started = parse(fs.readFileSync(file, 'utf8')) as Toml;
  /** Writes hub.toml as started, changed by `edit`. */
  const write = (edit: (c: Toml) => void) => {
    const c = structuredClone(started);
    edit(c);
    fs.writeFileSync(file, stringify(c));
  };
  const reload = async (query = '') => {
    const res = await fetch(`${hub.url}/api/v1/admin/config/reload${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.adminToken}` },
    });
    return { status: res.status, json: (await res.json()) as any };
  };
  return { hub, a, b, files, slow, file, write, reload };
}

t.test(
  'registries added, changed and removed live; a download through a removed registry finishes whole',
  async (t) => {
    const s = await setup(t);
    const { url } = s.hub;
    t.equal(await status(`${url}/proxy/npm2/hubdemo`), 404, 'npm2 is not served yet');

    s.write((c) => c.registries.push({ name: 'npm2', type: 'npm', upstream: s.b.url }));
    const added = await s.reload();
    t.equal(added.status, 200);
    t.same(
      added.json,
      { replicas: [{ id: 'local', result: 'applied', changed_keys: ['registries.npm2'], error: null }] },
      'the added registry is the one changed key',
    );
    t.equal(await status(`${url}/proxy/npm2/hubdemo`), 200, 'npm2 is served');
    t.ok(s.b.count('/hubdemo') > 0, 'from its upstream');

    t.equal(await status(`${url}/proxy/npm/hubdemo`), 200);
    t.ok(s.a.count('/hubdemo') > 0, 'npm asks upstream a');
    s.write((c) => {
      c.registries.push({ name: 'npm2', type: 'npm', upstream: s.b.url });
      c.registries[0].upstream = s.b.url;
    });
    const changed = await s.reload();
    t.same(changed.json.replicas[0].changed_keys, ['registries.npm.upstream', 'registries.npm.upstreams']);
    t.equal(await status(`${url}/proxy/npm/hubdep`), 200);
    t.equal(await status(`${url}/proxy/npm/hubdep/-/hubdep-1.0.0.tgz`), 200);
    t.ok(s.b.count('/hubdep') > 0, 'new requests go to the new upstream');
    t.equal(s.b.count('/hubdep/-/hubdep-1.0.0.tgz'), 1, 'tarballs too');
    t.equal(s.a.count('/hubdep') + s.a.count('/hubdep/-/hubdep-1.0.0.tgz'), 0, 'and never to the old one');

    // A download through `files` that takes about two seconds, running while `files` is removed.
    s.files.fault('/pkg/1.0.0/slow.bin', { type: 'slow', bytesPerTick: s.slow.length / 20, tickMs: 100 });
    const running = download(`${url}/proxy/files/pkg/1.0.0/slow.bin`);
    while (s.files.count('/pkg/1.0.0/slow.bin') === 0) await new Promise((r) => setTimeout(r, 10));
    s.write((c) => {
      c.registries = [
        { ...c.registries[0], upstream: s.b.url },
        { name: 'npm2', type: 'npm', upstream: s.b.url },
      ];
    });
    const removed = await s.reload();
    t.same(removed.json.replicas[0].changed_keys, ['registries.files']);
    const refused = await fetch(`${url}/proxy/files/pkg/1.0.0/small.txt`);
    t.equal(refused.status, 404, 'a removed registry answers 404 to new requests');
    t.match(await refused.json(), { error: { code: 'not_found', message: 'no registry named "files"' } });
    const done = await running;
    t.equal(done.status, 200);
    t.ok(
      done.complete && done.sha256 === crypto.createHash('sha256').update(s.slow).digest('hex'),
      'the download in flight finished with every byte',
    );
    t.equal(await status(`${url}/proxy/npm2/hubdemo`), 200, 'the registries that stayed still serve');
  },
);

t.test(
  'a broken file and a restart-only key are refused by name; nothing of them applies and the old config serves',
  async (t) => {
    const s = await setup(t);
    const { url } = s.hub;
    // metadata_ttl_secs of the first registry is not a number: the loader's `<file>:<line>: <key>: <problem>`.
    s.write((c) => {
      c.registries[0].metadata_ttl_secs = 'soon';
      c.registries.push({ name: 'npm3', type: 'npm', upstream: s.b.url });
    });
    const line =
      fs
        .readFileSync(s.file, 'utf8')
        .split('\n')
        .findIndex((l) => l.startsWith('metadata_ttl_secs')) + 1;
    const broken = await s.reload();
    t.equal(broken.json.replicas[0].result, 'refused');
    t.equal(
      broken.json.replicas[0].error,
      `${s.file}:${line}: registries[0].metadata_ttl_secs: must be an integer (got "soon")`,
      'refused with the file, line and key',
    );
    t.equal(await status(`${url}/proxy/npm3/hubdemo`), 404, 'the rest of the file was not applied');
    t.equal(await status(`${url}/proxy/npm/hubdemo`), 200, 'the old configuration serves');

    s.write((c) => {
      c.server.listen = '127.0.0.1:1';
      c.database.filename = path.join(path.dirname(s.file), 'other.db');
      c.registries.push({ name: 'npm3', type: 'npm', upstream: s.b.url });
    });
    const restart = await s.reload();
    t.equal(restart.json.replicas[0].result, 'refused');
    t.equal(
      restart.json.replicas[0].error,
      '[database] filename cannot change while hub runs; restart to apply; [server] listen cannot change while hub runs; restart to apply',
      'each restart-only key is named',
    );
    t.same(restart.json.replicas[0].changed_keys, ['database.filename', 'registries.npm3', 'server.listen']);
    t.equal(await status(`${url}/proxy/npm3/hubdemo`), 404, 'the live part of a refused file is not applied either');

    s.write((c) => (c.registries[1].type = 'npm'));
    const retyped = await s.reload();
    t.match(retyped.json.replicas[0].error, /\[\[registries\]\] "files" type cannot change while hub runs/);

    const cli = await runHub(['reload'], { HUB_URL: url, HUB_TOKEN: s.hub.adminToken });
    t.equal(cli.code, 1, 'hub reload exits 1 when a replica refused');
    t.match(cli.stdout, /^local: refused: \[\[registries\]\] "files" type cannot change/);
    t.equal(await status(`${url}/proxy/files/pkg/1.0.0/small.txt`), 200, 'and the old configuration still serves');
  },
);

t.test(
  'each reload is an audit row with secrets masked, a config_reloaded event and a metric; flag sources change live',
  async (t) => {
    const s = await setup(t);
    s.write((c) => {
      c.flag_sources[0].secret = SECOND_SECRET;
      c.registries[0].upstream_auth = { token: UPSTREAM_TOKEN };
      c.auth.anonymous = [];
    });
    const cli = await runHub(['reload', '--local'], { HUB_URL: s.hub.url, HUB_TOKEN: s.hub.adminToken });
    t.equal(cli.code, 0, cli.stderr);
    t.equal(cli.stdout, 'local: applied (auth.anonymous, flag_sources.osv.secret, registries.npm.upstream_auth)\n');

    await s.hub.hub.audit.flush();
    const rows = await s.hub.hub
      .db('access_events')
      .where({ action: 'config_reload' })
      .select('user_id', 'detail', 'status');
    t.equal(rows.length, 1, 'one audit row');
    t.equal(rows[0]!.user_id, 'admin');
    t.equal(
      rows[0]!.detail,
      'applied: auth.anonymous: ["source:read"] -> []; flag_sources.osv.secret: "***" -> "***"; registries.npm.upstream_auth: (unset) -> {"token":"***"}',
    );
    const all =
      JSON.stringify(await s.hub.hub.db('access_events').select()) +
      JSON.stringify(await s.hub.hub.db('events').select());
    t.notOk(
      all.includes(SECOND_SECRET) || all.includes(FIRST_SECRET) || all.includes(UPSTREAM_TOKEN),
      'no secret is written anywhere',
    );

    const events = await s.hub.hub.db('events').where({ type: 'config_reloaded' }).select('data');
    t.equal(events.length, 1, 'a config_reloaded event');
    t.same(JSON.parse(events[0]!.data), {
      replica: 'local',
      changed_keys: ['auth.anonymous', 'flag_sources.osv.secret', 'registries.npm.upstream_auth'],
      by: 'admin',
    });

    t.equal(await status(`${s.hub.url}/proxy/npm/hubdemo`), 401, 'anonymous reads are gone');
    const body = JSON.stringify({
      flags: [
        {
          external_id: 'GHSA-1',
          registry: 'npm',
          package_name: 'hubdemo',
          version: '1.0.0',
          kind: 'vulnerability',
          effect: 'warn',
          summary: 'x',
        },
      ],
    });
    const push = (secret: string) =>
      fetch(`${s.hub.url}/api/v1/flags/osv`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...signFlagRequest({ secret, method: 'POST', path: '/api/v1/flags/osv', body }),
        },
        body,
      }).then((r) => r.status);
    t.equal(await push(FIRST_SECRET), 401, 'the old flag secret is refused');
    t.equal(await push(SECOND_SECRET), 200, 'the new one is taken');

    s.write((c) => (c.server.listen = '127.0.0.1:1'));
    await s.reload();
    const metrics = await (await fetch(`${s.hub.url}/metrics`)).text();
    t.match(metrics, /hub_config_reloads_total\{result="applied"\} 1\n/);
    t.match(metrics, /hub_config_reloads_total\{result="refused"\} 1\n/);
    await s.hub.hub.audit.flush();
    const refusedRow = await s.hub.hub
      .db('access_events')
      .where({ action: 'config_reload' })
      .orderBy('id', 'desc')
      .first();
    t.match(
      refusedRow!.detail,
      /^refused: \[server\] listen cannot change while hub runs; restart to apply \(changes: .*server\.listen: "127\.0\.0\.1:0" -> "127\.0\.0\.1:1"\)$/,
    );
  },
);

t.test('policies, rate limits and the log level change live', async (t) => {
  const s = await setup(t);
  const { url } = s.hub;
  t.equal(await status(`${url}/proxy/npm/hubdemo`), 200);
  s.write((c) => {
    c.auth.policies = [{ name: 'no-npm', effect: 'deny', permissions: ['source:read'], registries: ['npm'] }];
    c.limits.rate_per_ip = 0.001;
    c.limits.burst_per_ip = 5;
    c.server.log_level = 'debug';
  });
  const applied = await s.reload();
  t.same(applied.json.replicas[0].changed_keys, [
    'auth.policies',
    'limits.burst_per_ip',
    'limits.rate_per_ip',
    'server.log_level',
  ]);
  t.equal(await status(`${url}/proxy/npm/hubdemo`), 401, 'the new policy denies anonymous reads of npm');
  t.equal(await status(`${url}/proxy/files/pkg/1.0.0/small.txt`), 200, 'and nothing else');
  const statuses: number[] = [];
  for (let i = 0; i < 6; i++) statuses.push(await status(`${url}/proxy/files/pkg/1.0.0/small.txt`));
  t.equal(statuses.at(-1), 429, 'the smaller rate budget holds at once');
  t.equal(s.hub.hub.log.level, 'debug', 'the log level is the new one');
});

t.test(
  'a group is rebuilt over its members as they are now: a member moved to another upstream serves through the group',
  async (t) => {
    const a = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
    const b = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
    t.teardown(() => Promise.all([a.close(), b.close()]));
    const dir = t.testdir();
    const hub = await startTestHub({
      dir,
      plugins: [npm, admin],
      registries: [
        { name: 'npm-a', type: 'npm', upstream: a.url },
        { name: 'npm-b', type: 'npm', upstream: b.url },
        { name: 'npm', type: 'npm', mode: 'group', members: ['npm-a', 'npm-b'] },
      ],
      config: { auth: { anonymous: ['source:read'] } },
    });
    t.teardown(() => hub.close());
    const file = path.join(dir, 'hub.toml');
    const c = parse(fs.readFileSync(file, 'utf8')) as Toml;
    t.equal(await status(`${hub.url}/proxy/npm/hubdemo`), 200, 'served through the group');
    t.ok(a.count('/hubdemo') >= 1, 'by its first member');
    c.registries.find((r: Toml) => r.name === 'npm-a').upstream = b.url;
    fs.writeFileSync(file, stringify(c));
    const res = await fetch(`${hub.url}/api/v1/admin/config/reload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.adminToken}` },
    });
    t.match(await res.json(), { replicas: [{ result: 'applied', changed_keys: ['registries.npm-a.upstream'] }] });
    const before = a.count();
    t.equal(
      await status(`${hub.url}/proxy/npm/hubdep`),
      200,
      'the group still serves: its first member is the one in force, not the retired one',
    );
    t.equal(a.count(), before, 'the old upstream is not asked');
    t.ok(b.count('/hubdep') >= 1, 'the member asks its new upstream');
  },
);
