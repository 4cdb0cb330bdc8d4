import t from 'tap';
import { ANONYMOUS_READ, CRATE, fixture, get, setup } from './setup.js';

const CFG_IF_CKSUM = 'c7c3064cdecb147866a94a8661da825841ece61eceb78d4de820f593edb62448';
const DAY = 86400_000;
const iso = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();

/**
 * cfg-if's index, in publish order: 0.1.0 without a pubtime (placed in time by 1.0.0 after it),
 * 1.0.0 ten days old, 1.0.1 a minute old, 1.0.2 without a pubtime and nothing after it.
 */
function cfgIfIndex(): string {
  const line = (vers: string, pubtime?: string) =>
    JSON.stringify({
      name: 'cfg-if',
      vers,
      deps: [],
      cksum: CFG_IF_CKSUM,
      features: {},
      yanked: false,
      ...(pubtime ? { pubtime } : {}),
    });
  return [line('0.1.0'), line('1.0.0', iso(10 * DAY)), line('1.0.1', iso(60_000)), line('1.0.2')].join('\n') + '\n';
}

const handler = (
  req: { url?: string },
  res: { writeHead(s: number, h: Record<string, string>): void; end(b: string): void },
) => {
  if (req.url !== '/index/cf/g-/cfg-if') return false;
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end(cfgIfIndex());
  return true;
};

const versions = (body: Buffer) =>
  body
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { vers: string }).vers);

t.test('min_release_age_secs: too-new and unprovable versions leave the index and are refused', async (t) => {
  const s = await setup(t, {
    config: ANONYMOUS_READ,
    handler,
    registry: { security: { min_release_age_secs: 86400 } },
  });
  const index = await get(`${s.index}/cf/g-/cfg-if`);
  t.equal(index.status, 200);
  t.same(
    versions(index.body),
    ['0.1.0', '1.0.0'],
    'a line without pubtime before an old-enough line stays; the too-new and the unprovable go',
  );

  const old = await get(`${s.base}/api/v1/crates/cfg-if/1.0.0/download`);
  t.equal(old.status, 200);
  t.same(old.body, fixture(CRATE.cfgIf), 'the old version is served');

  const fresh = await get(`${s.base}/api/v1/crates/cfg-if/1.0.1/download`);
  t.equal(fresh.status, 403);
  t.match(fresh.json(), {
    error: {
      code: 'package_blocked',
      message:
        /^cfg-if 1\.0\.1 was published 20\d\d-.*within the registry's min_release_age_secs \(86400\); it is served from 20\d\d-/,
    },
  });

  const unknown = await get(`${s.base}/api/v1/crates/cfg-if/1.0.2/download`);
  t.equal(unknown.status, 403);
  t.match(unknown.json(), {
    error: {
      code: 'package_blocked',
      message: /^cfg-if 1\.0\.2 has no pubtime in the upstream index.*min_release_age_secs \(86400\)/,
    },
  });
  t.equal(
    s.upstream.count((r) => /cfg-if-1\.0\.[12]\.crate/.test(r.url)),
    0,
    'the refused crates were never fetched',
  );
});

t.test('without a cool-down every line is served as the upstream wrote it', async (t) => {
  const s = await setup(t, { config: ANONYMOUS_READ, handler, registry: { security: {} } });
  t.same(versions((await get(`${s.index}/cf/g-/cfg-if`)).body), ['0.1.0', '1.0.0', '1.0.1', '1.0.2']);
  t.equal((await get(`${s.base}/api/v1/crates/cfg-if/1.0.0/download`)).status, 200);
});
