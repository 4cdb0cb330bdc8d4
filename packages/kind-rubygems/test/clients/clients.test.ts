/**
 * The real clients through hub: RubyGems' `gem install` and Bundler's `bundle install` (Debian's
 * ruby, ruby-bundler). Skipped, saying so, where `gem` is not installed.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { sendFile, type FixtureHandler } from '@hub/testkit';
import { hubRequests, run, sandbox, skip, total } from '../ruby-clients.js';
import { FIXTURES, setup } from '../setup.js';

t.test('gem install through hub, with the token as the source URL password', { skip }, async (t) => {
  const s = await setup(t);
  const token = await s.token('ci', { roles: ['reader'] });
  const { dir, env } = sandbox(t);
  const source = `${s.base.replace('http://', `http://ci:${token}@`)}/`;
  const installDir = path.join(dir, 'installed');
  const { stdout } = await run(
    'gem',
    [
      'install',
      'hubdemo',
      '-v',
      '1.1.0',
      '--clear-sources',
      '--source',
      source,
      '--install-dir',
      installDir,
      '--no-document',
    ],
    {
      env,
      timeout: 120_000,
    },
  );
  t.match(stdout, /Successfully installed hubdemo-1\.1\.0/);
  t.ok(fs.existsSync(path.join(installDir, 'gems', 'hubdemo-1.1.0', 'lib', 'hubdemo.rb')), 'hubdemo 1.1.0 installed');
  t.ok(
    fs.existsSync(path.join(installDir, 'gems', 'hubdep-1.0.0', 'lib', 'hubdep.rb')),
    'its dependency came through hub too',
  );
  const counts = await hubRequests(s);
  t.comment(`gem install: ${total(counts)} requests through hub: ${JSON.stringify(counts)}`);
  t.equal(counts['root 200'], 1, 'HEAD / probed once, answered 200: compact-index mode');
  t.ok((counts['info 200'] ?? 0) >= 2, 'info/<gem> for hubdemo and hubdep');
  t.equal(counts['gem 200'], 2, 'two .gem downloads');
  t.notOk(
    Object.keys(counts).some((k) => / [45]\d\d$/.test(k)),
    'no request failed',
  );
  t.equal(
    s.upstream.count((r) => Boolean(r.headers.authorization)),
    0,
    'the token never reaches the upstream',
  );

  const bad = await run(
    'gem',
    [
      'install',
      'hubdep',
      '--clear-sources',
      '--source',
      `${s.base.replace('http://', 'http://ci:hub_wrong@')}/`,
      '--install-dir',
      path.join(dir, 'x'),
    ],
    {
      env,
      timeout: 120_000,
    },
  ).then(
    () => null,
    (e: { stderr: string; stdout: string }) => e,
  );
  t.ok(bad, 'a wrong token fails the install');
  t.match(`${bad?.stderr}${bad?.stdout}`, /401|Unauthorized|unauthorized|bad response/i, 'and gem reports the refusal');
});

t.test(
  'gem list --remote reads the full index (specs.4.8.gz) through hub, unlisted versions left out',
  { skip },
  async (t) => {
    const s = await setup(t);
    const token = await s.token('ci', { roles: ['reader'] });
    await s.unlist('hubdemo', '1.0.0');
    const { env } = sandbox(t);
    const source = `${s.base.replace('http://', `http://ci:${token}@`)}/`;
    const { stdout } = await run('gem', ['list', '--remote', '--all', '--clear-sources', '--source', source], {
      env,
      timeout: 120_000,
    });
    t.match(stdout, /^hubdemo \(1\.1\.0\)$/m, 'hubdemo lists 1.1.0 only');
    t.match(stdout, /^hubdep \(1\.0\.0\)$/m);
    t.match(stdout, /^hubmac \(1\.0 x86_64-darwin-19\)$/m, 'the platform gem');
    const counts = await hubRequests(s);
    t.comment(`gem list --remote --all: ${total(counts)} requests through hub: ${JSON.stringify(counts)}`);
    t.equal(counts['specs 200'], 1, 'specs.4.8.gz read once');
  },
);

t.test(
  'bundle install through hub (BUNDLE_<HOST> credentials), then bundle update with Range requests',
  { skip },
  async (t) => {
    // After `later` is set the upstream has published hubdemo 1.2.0: versions and info/hubdemo grew at the end.
    let later = false;
    const handler: FixtureHandler = async (req, res, up) => {
      const p = req.url ?? '';
      if (!later || !['/versions', '/info/hubdemo', '/gems/hubdemo-1.2.0.gem'].includes(p)) return false;
      await sendFile(req, res, up, path.join(FIXTURES, 'later', p));
      return true;
    };
    const s = await setup(t, { handler, registry: { metadata_ttl_secs: 0 } });
    const token = await s.token('ci', { roles: ['reader'] });
    const { dir, env } = sandbox(t);
    fs.writeFileSync(path.join(dir, 'app', 'Gemfile'), `source "${s.base}/"\n\ngem "hubdemo", "~> 1.0"\n`);
    const benv = { ...env, BUNDLE_127__0__0__1: `ci:${token}` };
    const first = await run('bundle', ['install'], { cwd: path.join(dir, 'app'), env: benv, timeout: 180_000 });
    t.match(first.stdout, /Installing hubdemo 1\.1\.0/);
    t.match(first.stdout, /Installing hubdep 1\.0\.0/);
    const lock = fs.readFileSync(path.join(dir, 'app', 'Gemfile.lock'), 'utf8');
    t.match(lock, /hubdemo \(1\.1\.0\)/);
    const c1 = await hubRequests(s);
    t.comment(`bundle install: ${total(c1)} requests through hub: ${JSON.stringify(c1)}`);
    t.equal(c1['versions 200'], 1, 'versions fetched once');
    t.equal(c1['gem 200'], 2, 'two .gem downloads');
    t.notOk(
      Object.keys(c1).some((k) => / [45]\d\d$/.test(k)),
      'no request failed',
    );

    later = true;
    const second = await run('bundle', ['update', 'hubdemo'], {
      cwd: path.join(dir, 'app'),
      env: benv,
      timeout: 180_000,
    });
    t.match(second.stdout, /Installing hubdemo 1\.2\.0/, 'the newly published version');
    const c2 = await hubRequests(s);
    t.comment(`bundle update: ${total(c2) - total(c1)} more requests through hub: ${JSON.stringify(c2)}`);
    t.equal(
      c2['versions 206'],
      1,
      'versions: only the appended tail (206), which bundler checked against the ETag md5',
    );
    t.equal(c2['info 206'], 1, 'info/hubdemo: the tail too');
    t.equal(c2['versions 200'], 1, 'no full refetch after the range');
    t.notOk(
      Object.keys(c2).some((k) => / [45]\d\d$/.test(k)),
      'no request failed',
    );
    t.ok(
      s.upstream.requests.filter((r) => r.url === '/versions').length >= 2,
      'hub revalidated versions with the upstream (metadata_ttl_secs 0)',
    );
  },
);

t.test(
  'bundle install with an unlisted version: bundler never sees it, and the recomputed md5 holds',
  { skip },
  async (t) => {
    const s = await setup(t, { registry: { metadata_ttl_secs: 0 } });
    const token = await s.token('ci', { roles: ['reader'] });
    await s.unlist('hubdemo', '1.1.0');
    const { dir, env } = sandbox(t);
    fs.writeFileSync(path.join(dir, 'app', 'Gemfile'), `source "${s.base}/"\n\ngem "hubdemo"\n`);
    const benv = { ...env, BUNDLE_127__0__0__1: `ci:${token}` };
    const first = await run('bundle', ['install'], { cwd: path.join(dir, 'app'), env: benv, timeout: 180_000 });
    t.match(first.stdout, /Installing hubdemo 1\.0\.0/, 'the highest listed version');
    t.notMatch(first.stdout, /1\.1\.0/);
    const c1 = await hubRequests(s);
    await run('bundle', ['update'], { cwd: path.join(dir, 'app'), env: benv, timeout: 180_000 });
    const c2 = await hubRequests(s);
    t.comment(`bundle install + update with 1.1.0 unlisted: ${JSON.stringify(c2)}`);
    t.equal((c2['versions 304'] ?? 0) - (c1['versions 304'] ?? 0), 1, 'versions: unchanged (304)');
    t.equal(
      Object.keys(c2)
        .filter((k) => k.startsWith('info '))
        .reduce((n, k) => n + c2[k]! - (c1[k] ?? 0), 0),
      0,
      'no info refetched: its md5 matched the versions line',
    );
  },
);
