import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { npmFixtureHandler, rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import npm from '../src/index.js';
import { FIXTURES } from './setup.js';
import { publishBody, send, tgz } from './npm-env.js';
import publishing from '@hub/publishing';

/** Issue 13: publishing to hub, and the refusals (npm publish, deprecate, dist-tag and unpublish with the real npm client: clients/publish-npm.test.ts). */

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

t.test('refusals: 401, 403, 405 on a proxy, 409, 400 for what disagrees or leaves its place, 413', async (t) => {
  const s = await start(t, { local: { max_publish_bytes: 20_000 } });
  const base = s.base('internal');
  const good = tgz({
    'package/package.json': JSON.stringify({ name: 'acme-x', version: '1.0.0' }),
    'package/index.js': 'module.exports = 1;\n',
  });
  const put = (url: string, body: unknown, token: string | null = s.publisher) =>
    send(url, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...(token ? bearer(token) : {}) },
      body: Buffer.from(JSON.stringify(body)),
    }).then((r) => ({
      status: r.status,
      code: r.body.length ? (json(r).error?.code as string | undefined) : undefined,
      message: r.body.length ? String(json(r).error?.message ?? '') : '',
      notice: String(r.headers['npm-notice'] ?? ''),
    }));

  t.equal((await put(`${base}/acme-x`, publishBody('acme-x', '1.0.0', good), null)).status, 401, 'no token');
  t.equal((await put(`${base}/acme-x`, publishBody('acme-x', '1.0.0', good), s.reader)).status, 403, 'a reader');
  const proxy = await put(`${s.base('public')}/acme-x`, publishBody('acme-x', '1.0.0', good));
  t.equal(proxy.status, 405, 'a proxy registry');
  t.equal(proxy.code, 'method_not_allowed');
  t.equal(s.upstream.count(), 0, 'nothing reached the upstream');

  const refused: Array<[string, string, unknown, RegExp]> = [
    [
      'integrity that is not the bytes',
      'acme-x',
      publishBody('acme-x', '1.0.0', good, {
        integrity: `sha512-${crypto.createHash('sha512').update('other').digest('base64')}`,
      }),
      /sha512/,
    ],
    [
      'shasum that is not the bytes',
      'acme-x',
      publishBody('acme-x', '1.0.0', good, { shasum: '0'.repeat(40) }),
      /sha1/,
    ],
    ['a malformed integrity', 'acme-x', publishBody('acme-x', '1.0.0', good, { integrity: 'md5-xyz' }), /integrity/],
    [
      'a tarball whose package.json names another package',
      'acme-y',
      publishBody('acme-y', '1.0.0', good),
      /names "acme-x"/,
    ],
    [
      'a tarball whose package.json has another version',
      'acme-x',
      publishBody('acme-x', '2.0.0', good),
      /version "1.0.0"/,
    ],
    [
      'a manifest that names another package',
      'acme-x',
      { ...publishBody('acme-x', '1.0.0', good), versions: { '1.0.0': { name: 'acme-other', version: '1.0.0' } } },
      /names "acme-other"/,
    ],
    ['a packument sent to another name', 'acme-x', { ...publishBody('acme-z', '1.0.0', good) }, /sent to acme-x/],
    [
      'a version that leaves its place',
      'acme-x',
      publishBody('acme-x', '../../../etc/passwd', good),
      /not a valid npm version/,
    ],
    [
      'an attachment that leaves its place',
      'acme-x',
      publishBody('acme-x', '1.0.0', good, { attachment: '../../acme-x-1.0.0.tgz' }),
      /exactly one tarball/,
    ],
    [
      'a tarball without package/package.json',
      'acme-x',
      publishBody('acme-x', '1.0.0', tgz({ 'other/index.js': '1' })),
      /no package\/package.json/,
    ],
    [
      'a tarball that is not gzip',
      'acme-x',
      publishBody('acme-x', '1.0.0', Buffer.from('not a tarball at all')),
      /tgz/,
    ],
    ['an upper-case name', 'Acme-X', publishBody('Acme-X', '1.0.0', good), /lower-case/],
    [
      'a dist-tag that is a version range',
      'acme-x',
      publishBody('acme-x', '1.0.0', good, { distTags: { '1.x': '1.0.0' } }),
      /dist-tag/,
    ],
  ];
  for (const [what, name, body, message] of refused) {
    const r = await put(`${base}/${name.replace('/', '%2f')}`, body);
    t.equal(r.status, 400, what);
    t.match(r.message, message, `${what}: ${r.message}`);
  }
  const traversalName = await send(`${base}/@acme%2f..%2f..%2fetc`, {
    method: 'PUT',
    headers: { ...bearer(s.publisher), 'content-type': 'application/json' },
    body: Buffer.from('{}'),
  });
  t.equal(traversalName.status, 400, 'a name that leaves its place');
  const notJson = await send(`${base}/acme-x`, {
    method: 'PUT',
    headers: bearer(s.publisher),
    body: Buffer.from('<html>'),
  });
  t.equal(notJson.status, 400, 'a body that is not JSON');

  const big = tgz({
    'package/package.json': JSON.stringify({ name: 'acme-x', version: '1.0.0' }),
    'package/blob.bin': crypto.randomBytes(30_000).toString('base64'),
  });
  const tooLarge = await put(`${base}/acme-x`, publishBody('acme-x', '1.0.0', big));
  t.equal(tooLarge.status, 413, 'over max_publish_bytes');
  t.equal(tooLarge.code, 'payload_too_large');
  t.same(await s.hub.db('artifacts').select('cache_key'), [], 'no refused publish stored anything');
  t.same(await s.hub.db('local_versions').select('version'), [], 'nor recorded a version');

  t.equal((await put(`${base}/acme-x`, publishBody('acme-x', '1.0.0', good))).status, 201, 'the good one is published');
  const dup = await put(`${base}/acme-x`, publishBody('acme-x', '1.0.0', good));
  t.equal(dup.status, 409, 'a duplicate version');
  t.equal(dup.code, 'conflict');
  t.match(dup.notice, /already published/, 'npm-notice says why');
  const rmLatest = await rawRequest(`${base}/-/package/acme-x/dist-tags/latest`, {
    method: 'DELETE',
    headers: bearer(s.publisher),
  });
  t.equal(rmLatest.status, 400, 'latest cannot be removed');
  const tagMissing = await put(`${base}/-/package/acme-x/dist-tags/beta`, '9.9.9');
  t.equal(tagMissing.status, 404, 'a tag points at a published version');
  const newVersionByUpdate = await put(`${base}/acme-x`, {
    name: 'acme-x',
    versions: { '1.0.0': { name: 'acme-x', version: '1.0.0' }, '5.0.0': { name: 'acme-x', version: '5.0.0' } },
  });
  t.equal(newVersionByUpdate.status, 400, 'a version arrives only with its tarball');

  const del = await rawRequest(`${base}/acme-x/-rev/1-x`, { method: 'DELETE', headers: bearer(s.publisher) });
  t.equal(del.status, 200, 'unpublish the package');
  const tomb = await put(`${base}/acme-x`, publishBody('acme-x', '1.0.0', good));
  t.equal(tomb.status, 409, 'a deleted version is refused for ever');
  t.match(tomb.message, /was deleted/);
  t.same(await s.hub.db('local_tombstones').select('version'), [{ version: '1.0.0' }]);
});

t.test(
  'hybrid merge for a name that is not local_only: local versions and dist-tags win over the upstream',
  async (t) => {
    const s = await start(t);
    const base = s.base('npm');
    // hubdemo is upstream (1.0.0, 1.1.0). Publish 1.1.0 and 2.0.0 here, then let the upstream be consulted for it.
    const mine = (v: string) =>
      tgz({
        'package/package.json': JSON.stringify({ name: 'hubdemo', version: v }),
        'package/index.js': `module.exports = "local ${v}";\n`,
      });
    const put = (v: string) =>
      send(`${base}/hubdemo`, {
        method: 'PUT',
        headers: { ...bearer(s.publisher), 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify(publishBody('hubdemo', v, mine(v)))),
      });
    t.equal((await put('1.1.0')).status, 409, 'the upstream has hubdemo: not without a claim');
    await s.hub.services.local.claim('npm', 'hubdemo', 'admin');
    t.equal(s.upstream.count('/hubdemo'), 1, 'the upstream was asked once whether it has the name');
    t.equal((await put('1.1.0')).status, 201);
    t.equal((await put('2.0.0')).status, 201);
    const owned = json(
      await rawRequest(`${base}/hubdemo`, { headers: { ...bearer(s.reader), accept: 'application/json' } }),
    );
    t.same(Object.keys(owned.versions), ['1.1.0', '2.0.0'], 'local_only (the default): only what was published here');
    t.equal(s.upstream.count('/hubdemo'), 1, 'and the upstream was not asked again');

    await s.hub.db('local_packages').where({ registry: 'npm', name: 'hubdemo' }).update({ local_only: false });
    const merged = json(
      await rawRequest(`${base}/hubdemo`, { headers: { ...bearer(s.reader), accept: 'application/json' } }),
    );
    t.same(Object.keys(merged.versions).sort(), ['1.0.0', '1.1.0', '2.0.0'], 'upstream and local versions');
    t.equal(merged['dist-tags'].latest, '2.0.0', 'the local latest wins');
    t.equal(
      merged.versions['1.1.0'].dist.integrity,
      `sha512-${crypto.createHash('sha512').update(mine('1.1.0')).digest('base64')}`,
      'the local 1.1.0 wins',
    );
    t.match(merged.versions['1.0.0'].dist.tarball, `${base}/hubdemo/-/hubdemo-1.0.0.tgz`);
    const local110 = await rawRequest(`${base}/hubdemo/-/hubdemo-1.1.0.tgz`, { headers: bearer(s.reader) });
    t.same(local110.body, mine('1.1.0'), 'the local tarball is served for the shared number');
    const up100 = await rawRequest(`${base}/hubdemo/-/hubdemo-1.0.0.tgz`, { headers: bearer(s.reader) });
    t.equal(up100.status, 200, 'an upstream-only version comes from the upstream');
    t.equal(s.upstream.count('/hubdemo/-/hubdemo-1.1.0.tgz'), 0, 'the upstream 1.1.0 was never fetched');
    const corgi = json(
      await rawRequest(`${base}/hubdemo`, {
        headers: { ...bearer(s.reader), accept: 'application/vnd.npm.install-v1+json' },
      }),
    );
    t.same(Object.keys(corgi.versions).sort(), ['1.0.0', '1.1.0', '2.0.0'], 'the abbreviated form merges the same way');
    t.same(
      json(await rawRequest(`${base}/-/package/hubdemo/dist-tags`, { headers: bearer(s.reader) })),
      merged['dist-tags'],
    );
  },
);

t.test('quota: concurrent publishes never take more than quota_bytes; a refused one records no version', async (t) => {
  const tarballs = Array.from({ length: 8 }, (_, i) =>
    tgz({
      'package/package.json': JSON.stringify({ name: 'acme-q', version: `1.0.${i}` }),
      'package/noise.txt': crypto.randomBytes(3000).toString('base64'),
    }),
  );
  const quota = tarballs[0]!.length * 3;
  const s = await start(t, { local: { quota_bytes: quota } });
  const results = await Promise.all(
    tarballs.map((tb, i) =>
      send(`${s.base('internal')}/acme-q`, {
        method: 'PUT',
        headers: { ...bearer(s.publisher), 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify(publishBody('acme-q', `1.0.${i}`, tb))),
      }),
    ),
  );
  const statuses = results.map((r) => r.status);
  const ok = statuses.filter((x) => x === 201).length;
  t.same([...new Set(statuses)].sort(), [201, 507], `some fit, the rest are refused (${statuses.join(' ')})`);
  const used = Number((await s.hub.db('registry_usage').where({ registry: 'internal' }).first('bytes'))?.bytes);
  t.ok(used <= quota, `usage ${used} stays within the quota ${quota}`);
  t.equal(
    (await s.hub.db('local_versions').select('version')).length,
    ok,
    'a version for each stored tarball, none for a refused one',
  );
  const doc = json(
    await rawRequest(`${s.base('internal')}/acme-q`, { headers: { ...bearer(s.reader), accept: 'application/json' } }),
  );
  t.equal(Object.keys(doc.versions).length, ok, 'the packument lists exactly those');
});
