import t from 'tap';
import type { FixtureHandler } from '@hub/testkit';
import { get, setup, zipOf } from './setup.js';

const DAY = 86400_000;

/**
 * The registry API's provider version documents, which the fixture files lack: hubns/hubdemo 1.2.3 was
 * published ten days ago, 1.3.0 a minute ago; hubns/badsum has none (404), so no publish time.
 */
const versionDocs: FixtureHandler = (req, res) => {
  const m = /^\/v1\/providers\/hubns\/hubdemo\/(1\.2\.3|1\.3\.0)$/.exec(req.url ?? '');
  if (!m) return false;
  const ago = m[1] === '1.2.3' ? 10 * DAY : 60_000;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: `hubns/hubdemo/${m[1]}`,
      namespace: 'hubns',
      name: 'hubdemo',
      version: m[1],
      published_at: new Date(Date.now() - ago).toISOString(),
    }),
  );
  return true;
};

const file = (v: string, name = 'archive.zip', type = 'hubdemo') =>
  `/v1/providers/hubns/${type}/${v}/download/linux/amd64/${name}`;

t.test(
  'min_release_age_secs: too-new versions leave /versions and the mirror index, and their files are refused',
  async (t) => {
    const s = await setup(t, { handler: versionDocs, registry: { security: { min_release_age_secs: 86400 } } });
    const versions = await get(`${s.base}/v1/providers/hubns/hubdemo/versions`, s.auth);
    t.equal(versions.status, 200);
    t.same(
      (versions.json().versions as Array<{ version: string }>).map((e) => e.version),
      ['1.2.3'],
      'only the old-enough version is listed',
    );
    const mirror = await get(`${s.base}/mirror/registry.hub.test/hubns/hubdemo/index.json`, s.auth);
    t.same(mirror.json(), { versions: { '1.2.3': {} } }, 'the network mirror index too');
    t.equal(
      (await get(`${s.base}/mirror/registry.hub.test/hubns/hubdemo/1.3.0.json`, s.auth)).status,
      403,
      "the mirror's version document of the too-new version",
    );

    for (const name of ['archive.zip', 'SHA256SUMS', 'SHA256SUMS.sig']) {
      const refused = await get(`${s.base}${file('1.3.0', name)}`, s.auth);
      t.equal(refused.status, 403, `${name} of the too-new version`);
      t.match(refused.json(), {
        error: {
          code: 'package_blocked',
          message:
            /^hubns\/hubdemo 1\.3\.0 was published 20\d\d-.*within the registry's min_release_age_secs \(86400\); it is served from 20\d\d-/,
        },
      });
    }
    t.equal(
      s.upstream.count((r) => r.url.includes('/files/hubdemo/1.3.0/')),
      0,
      'the too-new files were never fetched',
    );

    const old = await get(`${s.base}${file('1.2.3')}`, s.auth);
    t.equal(old.status, 200);
    t.same(old.body, zipOf('1.2.3'), 'the old version is served');

    t.same(
      (await get(`${s.base}/v1/providers/hubns/badsum/versions`, s.auth)).json().versions,
      [],
      'a version with no published_at is not listed',
    );
    const unknown = await get(`${s.base}${file('1.0.0', 'archive.zip', 'badsum')}`, s.auth);
    t.equal(unknown.status, 403);
    t.match(
      unknown.json().error.message,
      /^hubns\/badsum 1\.0\.0 has no published_at upstream.*min_release_age_secs \(86400\)/,
    );
  },
);

t.test('a published_at in the /versions entry is used without asking for the version document', async (t) => {
  const inline: FixtureHandler = (req, res) => {
    if (req.url !== '/v1/providers/hubns/hubdemo/versions') return false;
    res.writeHead(200, { 'content-type': 'application/json' });
    const at = (ago: number) => new Date(Date.now() - ago).toISOString();
    res.end(
      JSON.stringify({
        versions: [
          {
            version: '1.2.3',
            protocols: ['5.0'],
            platforms: [{ os: 'linux', arch: 'amd64' }],
            published_at: at(10 * DAY),
          },
          {
            version: '1.3.0',
            protocols: ['5.0'],
            platforms: [{ os: 'linux', arch: 'amd64' }],
            published_at: at(60_000),
          },
        ],
      }),
    );
    return true;
  };
  const s = await setup(t, { handler: inline, registry: { security: { min_release_age_secs: 86400 } } });
  t.same(
    (
      (await get(`${s.base}/v1/providers/hubns/hubdemo/versions`, s.auth)).json().versions as Array<{ version: string }>
    ).map((e) => e.version),
    ['1.2.3'],
  );
  t.equal((await get(`${s.base}${file('1.3.0')}`, s.auth)).status, 403);
  t.equal((await get(`${s.base}${file('1.2.3')}`, s.auth)).status, 200);
  t.equal(
    s.upstream.count((r) => /\/hubdemo\/1\.[23]\.[03]$/.test(r.url)),
    0,
    'no version document was asked for',
  );
});

t.test('without a cool-down every version is listed and served, and no version document is asked for', async (t) => {
  const s = await setup(t, { handler: versionDocs, registry: { security: {} } });
  t.same(
    (
      (await get(`${s.base}/v1/providers/hubns/hubdemo/versions`, s.auth)).json().versions as Array<{ version: string }>
    ).map((e) => e.version),
    ['1.2.3', '1.3.0'],
  );
  t.equal((await get(`${s.base}${file('1.3.0')}`, s.auth)).status, 200);
  t.equal(
    s.upstream.count((r) => /\/hubdemo\/1\.[23]\.[03]$/.test(r.url)),
    0,
  );
});
