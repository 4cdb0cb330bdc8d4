import fs from 'node:fs';
import path from 'node:path';
import t, { type Test } from 'tap';
import { npmEnv, TEST_MYSQL_URL } from '@hub/testkit';
import { byName, lockfileHub, type LockfileHub } from '../hub.js';

/**
 * npm end to end: a package-lock.json written by the real npm through hub, checked (fetchable), warmed with
 * `hub warm`, checked again (held), then installed by `npm ci` with the upstream stopped; mark-required holds;
 * every refusing status; the CLI's exit status.
 */
const DEPS = { hubdemo: '1.1.0', '@hubtest/scoped': '1.0.0' };

async function realPackageLock(t: Test, hub: LockfileHub): Promise<{ file: string; text: string }> {
  const reader = await hub.token('dev', { roles: ['reader'] });
  const env = npmEnv(t, `${hub.url}/proxy/npm/`, reader);
  const app = path.join(env.dir, 'app');
  fs.writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'app', version: '1.0.0', private: true, dependencies: DEPS }),
  );
  const r = await env.npm(['install', '--package-lock-only']);
  t.equal(r.code, 0, `npm install --package-lock-only: ${r.stderr}`);
  const file = path.join(app, 'package-lock.json');
  return { file, text: fs.readFileSync(file, 'utf8') };
}

async function warmAndInstall(t: Test, mysqlUrl?: string) {
  const hub = await lockfileHub(t, { mysqlUrl });
  const { file, text } = await realPackageLock(t, hub);

  const first = await hub.cli(['lockfile', 'check', file, '--json']);
  t.equal(first.code, 0, `check exits 0 when everything can be installed: ${first.stderr}`);
  const answer = JSON.parse(first.stdout);
  t.equal(answer.format, 'package-lock');
  t.same(Object.keys(byName(answer)).sort(), ['@hubtest/scoped', 'hubdemo', 'hubdep']);
  t.ok(
    answer.entries.every((e: any) => e.status === 'fetchable'),
    'nothing held yet: all fetchable from the upstream',
  );

  const warmed = await hub.cli(['warm', file]);
  t.equal(warmed.code, 0, `hub warm: ${warmed.stdout}${warmed.stderr}`);
  const line =
    /(\d+) entries: (\d+) fetched, (\d+) already held, (\d+) refused, (\d+) failed; (\d+) bytes in ([\d.]+)s/.exec(
      warmed.stdout,
    );
  t.ok(line, `a summary line: ${warmed.stdout}`);
  t.equal(line?.[2], '3', 'three tarballs fetched');
  t.ok(Number(line?.[6]) > 0, 'bytes counted');
  t.match(warmed.stderr, /warm 3\/3 fetched/, 'plain progress lines when not on a terminal');
  t.comment(`warm figure: ${line?.[0]}`);

  const again = JSON.parse((await hub.cli(['lockfile', 'check', file, '--json'])).stdout);
  t.ok(
    again.entries.every((e: any) => e.status === 'held'),
    'all held after warming, and their sha512 matches the lockfile',
  );
  const rewarm = await hub.cli(['warm', file, '--json']);
  t.equal(JSON.parse(rewarm.stdout).summary.already_held, 3, 'a second warm fetches nothing');

  // The upstream is gone: npm ci from the lockfile installs from what hub holds.
  await hub.upstream.close();
  const reader = await hub.token('ci', { roles: ['reader'] });
  const env = npmEnv(t, `${hub.url}/proxy/npm/`, reader);
  const app = path.join(env.dir, 'app');
  fs.writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'app', version: '1.0.0', private: true, dependencies: DEPS }),
  );
  fs.writeFileSync(path.join(app, 'package-lock.json'), text);
  const ci = await env.npm(['ci']);
  t.equal(ci.code, 0, `npm ci with the upstream stopped: ${ci.stderr}`);
  t.equal(env.installed('hubdemo')?.version, '1.1.0');
  t.equal(env.installed('hubdep')?.version, '1.0.0');

  // mark-required: held entries become retention holds; release removes them.
  const marked = await hub.cli(['lockfile', 'check', file, '--mark-required', 'release-1.0']);
  t.equal(marked.code, 0, marked.stderr);
  t.match(marked.stdout, /3 marked required/);
  const holds = await hub.hub.services.holds.list('npm');
  t.same(holds.map((h) => [h.package, h.version, h.reason]).sort(), [
    ['@hubtest/scoped', '1.0.0', 'lockfile:release-1.0'],
    ['hubdemo', '1.1.0', 'lockfile:release-1.0'],
    ['hubdep', '1.0.0', 'lockfile:release-1.0'],
  ]);
  const released = await hub.cli(['lockfile', 'release', 'release-1.0']);
  t.match(released.stdout, /released 3 required versions/);
  t.same(await hub.hub.services.holds.list('npm'), []);
}

t.test('npm: check, warm, npm ci with the upstream stopped, mark-required (SQLite)', (t) => warmAndInstall(t));
t.test(
  'npm: the same on MariaDB',
  { skip: TEST_MYSQL_URL ? false : 'HUB_TEST_MYSQL_URL is not set (CI sets it)' },
  (t) => warmAndInstall(t, TEST_MYSQL_URL),
);

async function refusingStatuses(t: Test, mysqlUrl?: string) {
  const hub = await lockfileHub(t, { mysqlUrl });
  const { file, text } = await realPackageLock(t, hub);
  t.equal((await hub.cli(['warm', file])).code, 0);
  const lock = JSON.parse(text);
  // An entry the upstream does not have, and hubdep's integrity rewritten (as if the release changed).
  lock.packages['node_modules/hub-no-such-package'] = {
    version: '9.9.9',
    resolved: 'http://upstream.example/x.tgz',
    integrity: 'sha512-AAAA',
  };
  const realIntegrity = lock.packages['node_modules/hubdep'].integrity as string;
  lock.packages['node_modules/hubdep'].integrity = `sha512-${Buffer.alloc(64, 7).toString('base64')}`;
  // Beside the real one: t.testdir() is the hub's own folder.
  const changed = path.join(path.dirname(file), 'changed-package-lock.json');
  fs.writeFileSync(changed, JSON.stringify(lock));

  let res = await hub.check({ lockfile: fs.readFileSync(changed, 'utf8'), file_name: 'package-lock.json' });
  t.equal(res.status, 200);
  let e = byName(res.body);
  t.equal(e['hub-no-such-package'].status, 'unknown_upstream');
  t.match(e['hub-no-such-package'].reason, /does not have/);
  t.equal(e.hubdep.status, 'integrity_mismatch');
  t.equal(e.hubdep.integrity.algorithm, 'sha512');
  t.equal(
    e.hubdep.integrity.held,
    Buffer.from(realIntegrity.slice(7), 'base64').toString('hex'),
    'the held digest is the real one',
  );
  t.equal(res.body.installable, false);

  await hub.hub.services.blocks.add({
    registry: 'npm',
    package_name: 'hubdep',
    version: '1.0.0',
    reason: 'CVE-0000-1',
    by: 'admin',
  });
  await hub.hub.services.unlisting.add({ registry: 'npm', package_name: '@hubtest/scoped', version: '1.0.0' }, 'admin');
  await hub.flag({
    external_id: 'ADV-1',
    registry: 'npm',
    package_name: 'hubdemo',
    version: '1.1.0',
    kind: 'vulnerability',
    effect: 'warn',
    summary: 'a warning',
  });
  res = await hub.check({ lockfile: text });
  e = byName(res.body);
  t.equal(e.hubdep.status, 'blocked');
  t.match(e.hubdep.reason, /CVE-0000-1/);
  t.equal(e['@hubtest/scoped'].status, 'unlisted');
  t.equal(e.hubdemo.status, 'flagged');
  t.equal(e.hubdemo.effect, 'warn');
  t.equal(e.hubdemo.installable, true, 'a warn flag does not refuse');
  await hub.flag({
    external_id: 'MAL-1',
    registry: 'npm',
    package_name: 'hubdemo',
    version: '1.1.0',
    kind: 'malware',
    effect: 'hard_block',
    summary: 'malware',
  });
  e = byName((await hub.check({ lockfile: text })).body);
  t.equal(e.hubdemo.effect, 'hard_block');
  t.equal(e.hubdemo.installable, false, 'a hard_block flag refuses');

  const cli = await hub.cli(['lockfile', 'check', changed]);
  t.equal(cli.code, 1, 'exit 1 when some entry cannot be installed');
  t.match(cli.stdout, /blocked\s+hubdep/);
  t.match(cli.stdout, /some entries cannot be installed/);

  const warmed = await hub.cli(['warm', changed, '--json']);
  t.equal(warmed.code, 1, 'warm exits 1 when entries are refused');
  t.equal(JSON.parse(warmed.stdout).summary.refused, 4);

  // No cargo registry on this hub.
  const cargo = await hub.check({
    lockfile: '[[package]]\nname = "cfg-if"\nversion = "1.0.0"\nsource = "registry+https://upstream.example/index"\n',
    file_name: 'Cargo.lock',
  });
  t.equal(cargo.body.entries[0].status, 'no_registry');
}

t.test('every refusing status, and the exit status (SQLite)', (t) => refusingStatuses(t));
t.test(
  'every refusing status on MariaDB',
  { skip: TEST_MYSQL_URL ? false : 'HUB_TEST_MYSQL_URL is not set (CI sets it)' },
  (t) => refusingStatuses(t, TEST_MYSQL_URL),
);

t.test('cool-down: a registry with min_release_age_secs answers cooldown with the date', async (t) => {
  const hub = await lockfileHub(t);
  const { text } = await realPackageLock(t, hub);
  const cool = await lockfileHub(t, {
    upstream: hub.upstream,
    registries: [
      {
        name: 'npm-cool',
        type: 'npm',
        mode: 'proxy',
        upstream: hub.upstream.url,
        security: { min_release_age_secs: 2_000_000_000 },
      },
    ],
  });
  const ambiguous = await cool.check({ lockfile: text });
  t.equal(ambiguous.status, 400, 'two npm registries: the request must name one');
  t.match(ambiguous.body.error.message, /several registries serve npm \(npm, npm-cool\)/);
  const res = await cool.check({ lockfile: text, registry: 'npm-cool' });
  const e = byName(res.body);
  t.equal(e.hubdemo.status, 'cooldown');
  t.ok(Date.parse(e.hubdemo.until) > Date.now(), `until ${e.hubdemo.until}`);
  t.equal(
    (await cool.check({ lockfile: text, registry: 'npm' })).body.entries[0].status,
    'fetchable',
    'the other registry has no cool-down',
  );
});
