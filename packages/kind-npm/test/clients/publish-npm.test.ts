import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { npmFixtureHandler, rawRequest, startFixtureUpstream, startTestHub, missingClient } from '@hub/testkit';
import npm from '../../src/index.js';
import { FIXTURES } from '../setup.js';
import { hasNpm, npmEnv, tgz } from '../npm-env.js';
import publishing from '@hub/publishing';

/** Issue 13: npm publish, deprecate, dist-tag and unpublish against hub with the real npm client, and the refusals. */
const noNpm = hasNpm ? false : missingClient('npm');

interface UpstreamPackage {
  name: string;
  version: string;
  index: string;
}

/**
 * An npm fixture upstream: the committed fixture packages, plus `extra` packages (made here as npm lays them
 * out) so a hybrid registry's upstream can also have a name published to hub.
 */
async function upstreamWith(t: Test, extra: UpstreamPackage[]) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-npm-upstream-'));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.cpSync(FIXTURES, root, { recursive: true });
  for (const p of extra) {
    const tarball = tgz({
      'package/package.json': JSON.stringify({ name: p.name, version: p.version, main: 'index.js' }),
      'package/index.js': p.index,
    });
    const file = `${p.name.slice(p.name.lastIndexOf('/') + 1)}-${p.version}.tgz`;
    fs.mkdirSync(path.join(root, ...p.name.split('/'), '-'), { recursive: true });
    fs.writeFileSync(path.join(root, ...p.name.split('/'), '-', file), tarball);
    const doc = {
      _id: p.name,
      name: p.name,
      'dist-tags': { latest: p.version },
      versions: {
        [p.version]: {
          name: p.name,
          version: p.version,
          main: 'index.js',
          dist: {
            tarball: `{{UPSTREAM}}/${p.name}/-/${file}`,
            integrity: `sha512-${crypto.createHash('sha512').update(tarball).digest('base64')}`,
            shasum: crypto.createHash('sha1').update(tarball).digest('hex'),
          },
        },
      },
      time: {
        created: '2024-01-01T00:00:00.000Z',
        modified: '2024-01-01T00:00:00.000Z',
        [p.version]: '2024-01-01T00:00:00.000Z',
      },
    };
    fs.writeFileSync(path.join(root, `${p.name.replace('/', '%2f')}.json.tmpl`), JSON.stringify(doc));
  }
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(root) });
  t.teardown(() => upstream.close());
  return upstream;
}

/** One hub with a local, a hybrid and a proxy npm registry; the hybrid and proxy ones share the upstream. */
async function start(t: Test, opts: { extra?: UpstreamPackage[]; local?: Record<string, unknown> } = {}) {
  const upstream = await upstreamWith(t, opts.extra ?? []);
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [npm, publishing],
    registries: [
      { name: 'internal', type: 'npm', mode: 'local', ...opts.local },
      { name: 'npm', type: 'npm', mode: 'hybrid', upstream: upstream.url },
      { name: 'public', type: 'npm', mode: 'proxy', upstream: upstream.url },
    ],
  });
  t.teardown(() => hub.close());
  const publisher = await hub.token('ci', { roles: ['publisher'] });
  const reader = await hub.token('dev', { roles: ['reader'] });
  return { ...hub, upstream, publisher, reader, base: (registry: string) => `${hub.url}/proxy/${registry}` };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const json = (r: { body: Buffer }) => JSON.parse(r.body.toString('utf8')) as Record<string, any>;

t.test(
  'npm publishes to a local registry, installs back, deprecates, tags and unpublishes',
  { skip: noNpm },
  async (t) => {
    const s = await start(t);
    const registry = `${s.base('internal')}/`;
    const ci = npmEnv(t, registry, s.publisher);
    const dev = npmEnv(t, registry, s.reader);

    const v1 = ci.makePackage({ name: '@acme/widget', version: '1.0.0', description: 'first' });
    const p1 = await ci.npm(['publish'], v1);
    t.equal(p1.code, 0, `npm publish 1.0.0: ${p1.stderr}`);
    t.match(p1.stdout, /\+ @acme\/widget@1\.0\.0/);
    const p2 = await ci.npm(
      ['publish'],
      ci.makePackage({ name: '@acme/widget', version: '1.1.0', description: 'second', dependencies: {} }),
    );
    t.equal(p2.code, 0, `npm publish 1.1.0: ${p2.stderr}`);

    const inst = await dev.npm(['install', '--no-save', '@acme/widget']);
    t.equal(inst.code, 0, `npm install: ${inst.stderr}`);
    t.equal(dev.installed('@acme/widget')?.version, '1.1.0', 'latest is the newest publish');
    t.equal(
      dev.installedFile('@acme/widget', 'index.js'),
      'module.exports = "@acme/widget@1.1.0";\n',
      'the published bytes came back',
    );
    const pinned = await dev.npm(['install', '--no-save', '@acme/widget@1.0.0']);
    t.equal(pinned.code, 0, pinned.stderr);
    t.equal(dev.installed('@acme/widget')?.version, '1.0.0');

    // The packument is generated from the database: tags, times, and integrity computed by hub.
    const doc = json(
      await rawRequest(`${s.base('internal')}/@acme%2fwidget`, {
        headers: { ...bearer(s.reader), accept: 'application/json' },
      }),
    );
    t.same(doc['dist-tags'], { latest: '1.1.0' });
    t.same(Object.keys(doc.versions), ['1.0.0', '1.1.0']);
    t.equal(doc.description, 'second', 'package fields come from the latest version');
    t.equal(doc.versions['1.0.0'].dist.tarball, `${s.base('internal')}/@acme/widget/-/widget-1.0.0.tgz`);
    const tarball = await rawRequest(doc.versions['1.0.0'].dist.tarball, { headers: bearer(s.reader) });
    t.equal(tarball.status, 200);
    t.equal(
      doc.versions['1.0.0'].dist.integrity,
      `sha512-${crypto.createHash('sha512').update(tarball.body).digest('base64')}`,
    );
    t.ok(doc.time['1.0.0'] && doc.time.created && doc.time.modified, 'time is there');

    const dep = await ci.npm(['deprecate', '@acme/widget@1.0.0', 'use 1.1.0']);
    t.equal(dep.code, 0, `npm deprecate: ${dep.stderr}`);
    const corgi = json(
      await rawRequest(`${s.base('internal')}/@acme%2fwidget`, {
        headers: { ...bearer(s.reader), accept: 'application/vnd.npm.install-v1+json' },
      }),
    );
    t.equal(corgi.versions['1.0.0'].deprecated, 'use 1.1.0', 'the abbreviated packument carries the deprecation');
    t.equal(corgi.versions['1.1.0'].deprecated, undefined);
    fs.rmSync(path.join(dev.dir, 'app', 'node_modules'), { recursive: true, force: true });
    const warned = await dev.npm(['install', '--no-save', '@acme/widget@1.0.0']);
    t.match(warned.stderr, /deprecated.*use 1\.1\.0/, 'npm install warns');
    const undep = await ci.npm(['undeprecate', '@acme/widget@1.0.0']);
    t.equal(undep.code, 0, `npm undeprecate: ${undep.stderr}`);
    const cleared = json(
      await rawRequest(`${s.base('internal')}/@acme%2fwidget`, {
        headers: { ...bearer(s.reader), accept: 'application/json' },
      }),
    );
    t.equal(cleared.versions['1.0.0'].deprecated, undefined, 'the deprecation is cleared');

    t.equal((await ci.npm(['dist-tag', 'add', '@acme/widget@1.0.0', 'legacy'])).code, 0, 'npm dist-tag add');
    const ls = await dev.npm(['dist-tag', 'ls', '@acme/widget']);
    t.match(ls.stdout, /latest: 1\.1\.0/);
    t.match(ls.stdout, /legacy: 1\.0\.0/);
    const viaTag = await dev.npm(['install', '--no-save', '@acme/widget@legacy']);
    t.equal(viaTag.code, 0, viaTag.stderr);
    t.equal(dev.installed('@acme/widget')?.version, '1.0.0', 'the tag resolves');
    t.equal((await ci.npm(['dist-tag', 'rm', '@acme/widget', 'legacy'])).code, 0, 'npm dist-tag rm');
    t.notMatch((await dev.npm(['dist-tag', 'ls', '@acme/widget'])).stdout, /legacy/);
    t.equal((await dev.npm(['dist-tag', 'add', '@acme/widget@1.0.0', 'nope'])).code !== 0, true, 'a reader cannot tag');

    // A second package, to unpublish one version and then everything.
    t.equal((await ci.npm(['publish'], ci.makePackage({ name: 'acme-tool', version: '2.0.0' }))).code, 0);
    t.equal(
      (await ci.npm(['publish', '--tag', 'next'], ci.makePackage({ name: 'acme-tool', version: '2.1.0-beta.1' }))).code,
      0,
    );
    t.same(
      json(await rawRequest(`${s.base('internal')}/-/package/acme-tool/dist-tags`, { headers: bearer(s.reader) })),
      { latest: '2.0.0', next: '2.1.0-beta.1' },
    );

    const un = await ci.npm(['unpublish', '@acme/widget@1.0.0']);
    t.equal(un.code, 0, `npm unpublish one version: ${un.stderr}`);
    const after = json(
      await rawRequest(`${s.base('internal')}/@acme%2fwidget`, {
        headers: { ...bearer(s.reader), accept: 'application/json' },
      }),
    );
    t.same(Object.keys(after.versions), ['1.1.0']);
    t.equal(
      (await rawRequest(`${s.base('internal')}/@acme/widget/-/widget-1.0.0.tgz`, { headers: bearer(s.reader) })).status,
      404,
      'its tarball is gone',
    );
    // npm 11 wants a tag for a version below latest.
    const again = await ci.npm(['publish', '--tag', 'old'], v1);
    t.not(again.code, 0, 'an unpublished version is never published again');
    t.match(
      again.stderr,
      /409|E409/,
      again.stderr
        .split('\n')
        .filter((l) => !l.startsWith('npm notice'))
        .join('\n'),
    );
    t.match(again.stderr, /was deleted/, 'npm shows why (npm-notice)');

    const all = await ci.npm(['unpublish', 'acme-tool', '--force']);
    t.equal(all.code, 0, `npm unpublish --force: ${all.stderr}`);
    t.equal(
      (
        await rawRequest(`${s.base('internal')}/acme-tool`, {
          headers: { ...bearer(s.reader), accept: 'application/json' },
        })
      ).status,
      404,
    );
    const fresh = await ci.npm(['publish'], ci.makePackage({ name: 'acme-tool', version: '3.0.0' }));
    t.equal(fresh.code, 0, 'the name can be published again, with a new version number');
    const old = await ci.npm(['publish', '--tag', 'old'], ci.makePackage({ name: 'acme-tool', version: '2.0.0' }));
    t.match(old.stderr, /E409[\s\S]*was deleted/, '2.0.0 never again');

    await s.hub.audit.flush();
    const rows = await s.hub
      .db('access_events')
      .whereIn('action', ['publish', 'deprecate', 'dist_tag', 'unpublish'])
      .orderBy('id')
      .select('action', 'user_id', 'package', 'version', 'status');
    t.same(
      rows.map((r) => `${r.action} ${r.user_id} ${r.package}@${r.version ?? ''} ${r.status}`),
      [
        'publish ci @acme/widget@1.0.0 201',
        'publish ci @acme/widget@1.1.0 201',
        'deprecate ci @acme/widget@1.0.0 200',
        'deprecate ci @acme/widget@1.0.0 200',
        'dist_tag ci @acme/widget@1.0.0 201',
        'dist_tag ci @acme/widget@1.0.0 200',
        'publish ci acme-tool@2.0.0 201',
        'publish ci acme-tool@2.1.0-beta.1 201',
        'unpublish ci @acme/widget@1.0.0 200',
        'unpublish ci acme-tool@ 200',
        'publish ci acme-tool@3.0.0 201',
      ],
      'an audit row for every write, with its actor',
    );
    t.equal(
      (await s.hub.db('events').where({ type: 'package_published' })).length,
      5,
      'a package_published event per publish',
    );
  },
);

t.test(
  'publisher role on a hybrid registry: an internal name shadows the upstream one (dependency confusion)',
  { skip: noNpm },
  async (t) => {
    // The upstream also has acme-internal, at a higher version, doing something else.
    const s = await start(t, {
      extra: [{ name: 'acme-internal', version: '99.0.0', index: 'module.exports = "MALICIOUS";\n' }],
    });
    const registry = `${s.base('npm')}/`;
    const ci = npmEnv(t, registry, s.publisher);
    const dev = npmEnv(t, registry, s.reader);

    // The upstream has the name: an administrator claims it for the registry first (decision 0043).
    await s.hub.services.local.claim('npm', 'acme-internal', 'admin');
    const before = s.upstream.requests.length;
    const pub = await ci.npm(['publish'], ci.makePackage({ name: 'acme-internal', version: '1.0.0' }));
    t.equal(pub.code, 0, `npm publish to hybrid: ${pub.stderr}`);

    const inst = await dev.npm(['install', '--no-save', 'acme-internal', 'hubdemo@1.1.0']);
    t.equal(inst.code, 0, `npm install: ${inst.stderr}`);
    t.equal(dev.installed('acme-internal')?.version, '1.0.0', 'the internal package, not the higher upstream one');
    t.equal(dev.installedFile('acme-internal', 'index.js'), 'module.exports = "acme-internal@1.0.0";\n');
    t.equal(dev.installed('hubdemo')?.version, '1.1.0', 'other names still come from the upstream');
    const asked = s.upstream.requests.slice(before).map((r) => r.url);
    t.same(
      asked.filter((u) => u.includes('acme-internal')),
      [],
      'the upstream was never asked for the internal name, not even by npm publish',
    );
    t.ok(
      asked.some((u) => u.startsWith('/hubdemo')),
      'the upstream served hubdemo',
    );
    const pinnedMalicious = await dev.npm(['install', '--no-save', 'acme-internal@99.0.0']);
    t.not(pinnedMalicious.code, 0, 'the upstream version cannot be had even by number');
    t.equal(s.upstream.requests.slice(before).filter((r) => r.url.includes('acme-internal')).length, 0);
    const tarball = await rawRequest(`${s.base('npm')}/acme-internal/-/acme-internal-99.0.0.tgz`, {
      headers: bearer(s.reader),
    });
    t.equal(tarball.status, 404, 'nor its tarball by URL');
    t.equal(
      s.upstream.count((r) => r.url.includes('acme-internal-99')),
      0,
    );
  },
);
