/**
 * Issue 28: Bundler through a group `gems` of a local registry (`gems-internal`: acmegem 1.0.0, pushed here,
 * needing hubdemo ~> 1.2), the fixture gem server (`gems-public`: hubdemo 1.0.0 and 1.1.0, hubdep) and a second
 * one (`gems-vendor`: the `later` fixtures, whose hubdemo also has 1.2.0). The group's `/versions` carries, for
 * hubdemo, the MD5 of the merged `/info/hubdemo`, so a second bundle run fetches no `/info` again.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import publishing from '@hub/publishing';
import { rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import rubygems from '../../src/index.js';
import { makeGem } from '../gem-build.js';
import { run, sandbox, skip } from '../ruby-clients.js';
import { FIXTURES } from '../setup.js';

const md5 = (b: Buffer) => crypto.createHash('md5').update(b).digest('hex');

t.test(
  'bundle install through a group: a pushed gem, its dependency from the second upstream, and an unchanged second run',
  { skip },
  async (t) => {
    const pub = await startFixtureUpstream({ root: `${FIXTURES}upstream` });
    t.teardown(() => pub.close());
    const vendor = await startFixtureUpstream({ root: `${FIXTURES}later` });
    t.teardown(() => vendor.close());
    const hub = await startTestHub({
      dir: t.testdir(),
      plugins: [rubygems, publishing],
      registries: [
        { name: 'gems-internal', type: 'rubygems', mode: 'local' },
        { name: 'gems-public', type: 'rubygems', upstream: pub.url },
        { name: 'gems-vendor', type: 'rubygems', upstream: vendor.url },
        { name: 'gems', type: 'rubygems', mode: 'group', members: ['gems-internal', 'gems-public', 'gems-vendor'] },
      ],
    });
    t.teardown(async () => {
      await hub.hub.artifacts.idle();
      await hub.close();
    });
    const publisher = await hub.token('ci', { roles: ['publisher'] });
    const reader = await hub.token('dev', { roles: ['reader'] });
    const pushed = await fetch(`${hub.url}/proxy/gems-internal/api/v1/gems`, {
      method: 'POST',
      body: makeGem({ name: 'acmegem', version: '1.0.0', deps: [['hubdemo', '~>', '1.2']] }),
      headers: { 'content-type': 'application/octet-stream', authorization: publisher },
    });
    t.equal(pushed.status, 200, `pushed to the local member: ${await pushed.text()}`);

    const base = `${hub.url}/proxy/gems`;
    const auth = { authorization: `Bearer ${reader}` };
    const versions = await rawRequest(`${base}/versions`, { headers: auth });
    const info = await rawRequest(`${base}/info/hubdemo`, { headers: auth });
    t.same(
      info.body,
      fs.readFileSync(`${FIXTURES}later/info/hubdemo`),
      "the merged /info/hubdemo: the public member's lines, then 1.2.0's",
    );
    t.match(
      versions.body.toString(),
      new RegExp(`^hubdemo 1\\.0\\.0,1\\.1\\.0,1\\.2\\.0 ${md5(info.body)}$`, 'm'),
      "/versions: hubdemo's line carries the merged /info's MD5",
    );
    t.match(versions.body.toString(), /^acmegem 1\.0\.0 [0-9a-f]{32}$/m, 'and the pushed gem');
    const tail = await rawRequest(`${base}/versions`, {
      headers: { ...auth, range: `bytes=${versions.body.length - 1}-` },
    });
    t.equal(tail.status, 206, "bundler's tail request: a range of the merged document");
    t.same(tail.body, versions.body.subarray(versions.body.length - 1));
    const same = await rawRequest(`${base}/versions`, {
      headers: { ...auth, 'if-none-match': versions.headers.get('etag')! },
    });
    t.equal(same.status, 304, 'unchanged: 304 on its ETag');

    const { dir, env } = sandbox(t);
    fs.writeFileSync(path.join(dir, 'app', 'Gemfile'), `source "${base}/"\n\ngem "acmegem"\n`);
    const benv = { ...env, BUNDLE_127__0__0__1: `dev:${reader}` };
    const first = await run('bundle', ['install'], { cwd: path.join(dir, 'app'), env: benv, timeout: 180_000 });
    t.match(first.stdout, /Installing acmegem 1\.0\.0/);
    t.match(first.stdout, /Installing hubdemo 1\.2\.0/, "the newest hubdemo, from the second upstream's listing");
    t.match(first.stdout, /Installing hubdep 1\.0\.0/);
    t.equal(
      vendor.count((r) => r.url === '/gems/hubdemo-1.2.0.gem'),
      1,
      "hubdemo 1.2.0's .gem came from the vendor server",
    );
    t.equal(
      pub.count((r) => r.url.includes('acmegem')) + vendor.count((r) => r.url.includes('acmegem')),
      0,
      'the pushed gem was never asked of an upstream',
    );

    // Bundler's compact index client says, per gem, whether its copy of /info matches the /versions MD5.
    const second = await run('bundle', ['update', 'acmegem'], {
      cwd: path.join(dir, 'app'),
      env: { ...benv, DEBUG_COMPACT_INDEX: '1' },
      timeout: 180_000,
    });
    const said = second.stdout + second.stderr;
    t.match(
      said,
      /skipping updating info for hubdemo since the versions checksum matches the local checksum/,
      "the merged /info/hubdemo matches the group's /versions MD5",
    );
    t.notMatch(said, /\] updating info for \S+ since the versions checksum/, 'no gem needed its /info again');
  },
);
