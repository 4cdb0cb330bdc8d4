import t from 'tap';
import { get, OPEN, setup } from './setup.js';

/** The fixture registration says HubDemo 1.0.0 was published 2024-01-02 and 1.1.0 2024-02-01: a cool-down reaching back to mid-January hides 1.1.0 only. */
const coolDown = () => Math.floor((Date.now() - Date.parse('2024-01-17T00:00:00Z')) / 1000);

type Registration = { items: Array<{ items?: Array<{ catalogEntry: { version: string } }> }> };
const leafVersions = (doc: unknown) =>
  (doc as Registration).items.flatMap((p) => (p.items ?? []).map((l) => l.catalogEntry.version));

t.test(
  'min_release_age_secs: too-new versions leave the flat container and the registration, and their .nupkg is refused',
  async (t) => {
    const s = await setup(t, { config: OPEN, registry: { security: { min_release_age_secs: coolDown() } } });
    const flat = await get(`${s.flat}/hubdemo/index.json`);
    t.equal(flat.status, 200);
    t.same(flat.json().versions, ['1.0.0'], 'the flat container lists only the old-enough version');
    const reg = await get(`${s.reg}/hubdemo/index.json`);
    t.equal(reg.status, 200);
    t.same(leafVersions(reg.json()), ['1.0.0'], 'so does the registration');
    t.equal(reg.json().items[0].count, 1, 'with the page count to match');
    t.same(
      leafVersions(await get(`${s.reg}/hubdep/index.json`).then((r) => r.json())),
      [],
      'a package whose page is not inlined: the index is unchanged',
    );
    t.same(
      (await get(`${s.flat}/hubdep/index.json`)).json().versions,
      ['1.0.0'],
      'an old package read through a page that is not inlined stays',
    );

    const refused = await get(`${s.flat}/hubdemo/1.1.0/hubdemo.1.1.0.nupkg`);
    t.equal(refused.status, 403);
    t.match(refused.json(), {
      error: {
        code: 'package_blocked',
        message:
          /^hubdemo 1\.1\.0 was published 2024-02-01T00:00:00\.000Z, within the registry's min_release_age_secs \(\d+\); it is served from 20\d\d-/,
      },
    });
    t.equal((await get(`${s.flat}/hubdemo/1.1.0/hubdemo.nuspec`)).status, 403, 'its .nuspec too');
    t.equal(
      s.upstream.count((r) => r.url.includes('/hubdemo/1.1.0/')),
      0,
      'the too-new files were never fetched',
    );
    t.equal((await get(`${s.flat}/hubdemo/1.0.0/hubdemo.nuspec`)).status, 200);
    t.equal((await get(`${s.flat}/hubdemo/1.0.0/hubdemo.1.0.0.nupkg`)).status, 200, 'the old version is served');
    t.equal(
      (await get(`${s.flat}/hubdep/1.0.0/hubdep.1.0.0.nupkg`)).status,
      200,
      'and one whose time is in a page that is not inlined',
    );
  },
);

t.test(
  'a version the registration gives no time (the gallery writes 1900 for unlisted ones) is never served under a cool-down',
  async (t) => {
    const s = await setup(t, {
      config: OPEN,
      registry: { security: { min_release_age_secs: 60 } },
      // The fixture's registration for HubDemo, with 1.0.0's published set to the gallery's "unlisted" date.
      handler: async (req, res, up) => {
        if (req.url !== '/v3/registration-gz-semver2/hubdemo/index.json') return false;
        const r = await fetch(`${up.url}/v3/registration-gz-semver2/hubdemo/index.json?orig`);
        const body = (await r.text())
          .replaceAll('"published": "2024-01-02T00:00:00+00:00"', '"published": "1900-01-01T00:00:00+00:00"')
          .replaceAll('"published":"2024-01-02T00:00:00+00:00"', '"published":"1900-01-01T00:00:00+00:00"');
        t.match(body, /1900-01-01/, 'the fixture was rewritten');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
        return true;
      },
    });
    t.same(
      (await get(`${s.flat}/hubdemo/index.json`)).json().versions,
      ['1.1.0'],
      'the version without a time is not listed',
    );
    const refused = await get(`${s.flat}/hubdemo/1.0.0/hubdemo.1.0.0.nupkg`);
    t.equal(refused.status, 403);
    t.match(
      refused.json().error.message,
      /^hubdemo 1\.0\.0 has no publish time in the upstream registration.*min_release_age_secs \(60\)/,
    );
  },
);

t.test('without a cool-down every version is listed and served', async (t) => {
  const s = await setup(t, { config: OPEN, registry: { security: {} } });
  t.same((await get(`${s.flat}/hubdemo/index.json`)).json().versions, ['1.0.0', '1.1.0']);
  t.same(leafVersions((await get(`${s.reg}/hubdemo/index.json`)).json()), ['1.0.0', '1.1.0']);
  t.equal((await get(`${s.flat}/hubdemo/1.1.0/hubdemo.1.1.0.nupkg`)).status, 200);
});
