import crypto from 'node:crypto';
import fs from 'node:fs';
import t, { type Test } from 'tap';
import { rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import cargo from '../src/index.js';
import { mergedIndex } from '../src/index-file.js';
import { FIXTURES, fixture, CRATE } from './setup.js';
import { crateFile, publishMeta, tarGz, uploadBody } from './publish-body.js';
import publishing from '@hub/publishing';

/** Issue 13 over the wire: cargo's publish API as hub answers it (the real cargo is in cargo-publish.test.ts). */
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/**
 * Asks until `get` gives `want` (a generous 20 s bound); returns the last answer. It waits 1.5 s between asks:
 * a replica may remember a published file's row for a second, and each hit renews that memo.
 */
async function soon<T>(get: () => Promise<T>, want: T): Promise<T> {
  let got = await get();
  for (const until = Date.now() + 20_000; got !== want && Date.now() < until; got = await get())
    await new Promise((r) => setTimeout(r, 1500));
  return got;
}

async function start(t: Test, registry: Record<string, unknown>) {
  const upstream = await startFixtureUpstream({ root: FIXTURES });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [cargo, publishing],
    registries: [
      {
        name: 'crates',
        type: 'cargo',
        ...(registry.mode === 'local' ? {} : { upstream: `${upstream.url}/index` }),
        ...registry,
      },
    ],
  });
  t.teardown(() => hub.close());
  const publisher = await hub.token('ci', { roles: ['publisher'] });
  const reader = await hub.token('dev', { roles: ['reader'] });
  const base = `${hub.url}/proxy/crates`;
  // cargo sends its token bare, with no scheme.
  const req = (path: string, o: { method?: string; token?: string; body?: Buffer } = {}) =>
    fetch(`${base}/${path}`, {
      method: o.method ?? 'GET',
      body: o.body,
      headers: o.token ? { authorization: o.token } : {},
    }).then(async (r) => {
      const body = Buffer.from(await r.arrayBuffer());
      return {
        status: r.status,
        body,
        text: body.toString('utf8'),
        json: () => JSON.parse(body.toString('utf8')) as Record<string, any>,
      };
    });
  const publish = (body: Buffer, token = publisher) => req('api/v1/crates/new', { method: 'PUT', token, body });
  const indexLines = async (path: string) => {
    const r = await req(`registry/${path}`, { token: reader });
    return r.status === 200
      ? r.text
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, any>)
      : r.status;
  };
  return { hub, upstream, publisher, reader, base, req, publish, indexLines };
}

t.test(
  'local: publish, the index line made from the metadata, download, yank and unyank, delete and its tombstone',
  async (t) => {
    const s = await start(t, { mode: 'local' });
    const config = (await s.req('registry/config.json')).json();
    t.equal(config.api, s.base, 'config.json names the api, where cargo publish goes');

    const crate = crateFile('hub_demo', '0.1.0');
    const meta = publishMeta('hub_demo', '0.1.0', {
      deps: [
        {
          name: 'percent-encoding',
          version_req: '^2.2',
          features: ['alloc'],
          optional: true,
          default_features: false,
          target: null,
          kind: 'normal',
          registry: null,
          explicit_name_in_toml: 'pct',
        },
        {
          name: 'cfg-if',
          version_req: '^1',
          features: [],
          optional: false,
          default_features: true,
          target: 'cfg(unix)',
          kind: 'dev',
        },
      ],
      features: { default: [], extra: ['dep:pct'] },
      rust_version: '1.70',
    });
    const ok = await s.publish(uploadBody(meta, crate));
    t.equal(ok.status, 200, ok.text);
    t.same(
      ok.json(),
      { warnings: { invalid_categories: [], invalid_badges: [], other: [] } },
      "the public crate registry's answer",
    );

    t.same(await s.indexLines('hu/b_/hub_demo'), [
      {
        name: 'hub_demo',
        vers: '0.1.0',
        deps: [
          {
            name: 'pct',
            req: '^2.2',
            features: ['alloc'],
            optional: true,
            default_features: false,
            target: null,
            kind: 'normal',
            package: 'percent-encoding',
          },
          {
            name: 'cfg-if',
            req: '^1',
            features: [],
            optional: false,
            default_features: true,
            target: 'cfg(unix)',
            kind: 'dev',
          },
        ],
        cksum: sha256(crate),
        features: { default: [] },
        features2: { extra: ['dep:pct'] },
        v: 2,
        rust_version: '1.70',
        yanked: false,
        links: null,
      },
    ]);
    t.same(
      await s.indexLines('hu/b_/HUB_DEMO'),
      await s.indexLines('hu/b_/hub_demo'),
      'the index path is case-insensitive',
    );
    const dl = await s.req('api/v1/crates/hub_demo/0.1.0/download', { token: s.reader });
    t.equal(dl.status, 200);
    t.same(dl.body, crate, 'the .crate comes back byte for byte');

    const again = await s.publish(uploadBody(meta, crate));
    t.equal(again.status, 409, 'a version is published once');
    t.equal(again.json().error.code, 'conflict');
    const respelled = await s.publish(uploadBody(publishMeta('Hub-Demo', '0.2.0'), crateFile('Hub-Demo', '0.2.0')));
    t.equal(respelled.status, 409, 'another -/_ or case spelling of a published crate');
    t.match(respelled.json().error.message, /published here as hub_demo/);

    t.equal((await s.req('api/v1/crates/hub_demo/0.1.0/yank', { method: 'DELETE', token: s.publisher })).status, 200);
    t.match(await s.indexLines('hu/b_/hub_demo'), [{ vers: '0.1.0', yanked: true }], 'cargo yank');
    t.equal(
      (await s.req('api/v1/crates/hub_demo/0.1.0/download', { token: s.reader })).status,
      200,
      'a yanked .crate stays downloadable',
    );
    t.equal((await s.req('api/v1/crates/hub_demo/0.1.0/unyank', { method: 'PUT', token: s.publisher })).status, 200);
    t.match(await s.indexLines('hu/b_/hub_demo'), [{ vers: '0.1.0', yanked: false }], 'cargo yank --undo');
    t.equal(
      (await s.req('api/v1/crates/hub_demo/9.9.9/yank', { method: 'DELETE', token: s.publisher })).status,
      404,
      'yank of a version never published',
    );

    await s.hub.hub.services.unlisting.add({ registry: 'crates', package_name: 'hub_demo', version: '0.1.0' }, 'admin');
    t.match(
      await s.indexLines('hu/b_/hub_demo'),
      [{ vers: '0.1.0', yanked: true }],
      'an unlisted published version is yanked too',
    );

    const deleted = await s.req('api/v1/crates/hub_demo/0.1.0', { method: 'DELETE', token: s.publisher });
    t.equal(deleted.status, 200, deleted.text);
    t.equal(await s.indexLines('hu/b_/hub_demo'), 404, 'no version left: no index file');
    t.equal(
      await soon(async () => (await s.req('api/v1/crates/hub_demo/0.1.0/download', { token: s.reader })).status, 404),
      404,
      'its .crate is gone soon',
    );
    const tomb = await s.publish(uploadBody(meta, crate));
    t.equal(tomb.status, 409, 'a deleted version is never published again');
    t.match(tomb.json().error.message, /deleted/);
    t.equal(
      (await s.publish(uploadBody(publishMeta('hub_demo', '0.1.1'), crateFile('hub_demo', '0.1.1')))).status,
      200,
      'the name takes a new version',
    );
    t.match(await s.indexLines('hu/b_/hub_demo'), [{ vers: '0.1.1' }]);

    await s.hub.hub.audit.flush();
    const rows = await s.hub.hub
      .db('access_events')
      .whereIn('action', ['publish', 'yank', 'unyank', 'unpublish'])
      .orderBy('id')
      .select('action', 'user_id', 'package', 'version', 'status');
    t.same(
      rows.map((r: Record<string, unknown>) => [r.action, r.user_id, r.package, r.version, r.status]),
      [
        ['publish', 'ci', 'hub_demo', '0.1.0', 200],
        ['yank', 'ci', 'hub_demo', '0.1.0', 200],
        ['unyank', 'ci', 'hub_demo', '0.1.0', 200],
        ['unpublish', 'ci', 'hub_demo', '0.1.0', 200],
        ['publish', 'ci', 'hub_demo', '0.1.1', 200],
      ],
      'an audit row per write, with its actor',
    );
    t.equal(
      (await s.hub.hub.db('events').where({ type: 'package_published' })).length,
      2,
      'a package_published event per publish',
    );
  },
);

t.test(
  'the refusals: no token, a reader, a proxy registry, names that leave their place, a manifest that disagrees, too large, over quota',
  async (t) => {
    const crate = crateFile('good', '1.0.0');
    const body = uploadBody(publishMeta('good', '1.0.0'), crate);
    const s = await start(t, { mode: 'local', max_publish_bytes: body.length + 100, quota_bytes: crate.length + 10 });

    const anon = await s.req('api/v1/crates/new', { method: 'PUT', body });
    t.equal(anon.status, 401, 'no token');
    t.equal((await s.publish(body, s.reader)).status, 403, 'a reader may not publish');
    t.equal(
      (await s.req('api/v1/crates/good/1.0.0/yank', { method: 'DELETE', token: s.reader })).status,
      403,
      'nor yank',
    );

    const cases: Array<[string, Buffer, RegExp]> = [
      [
        'a name that leaves its place',
        uploadBody(publishMeta('../../etc', '1.0.0'), crateFile('good', '1.0.0')),
        /not a valid crate name/,
      ],
      [
        'a version that leaves its place',
        uploadBody(publishMeta('good', '1.0.0/../../x'), crateFile('good', '1.0.0')),
        /not a valid crate version/,
      ],
      [
        'a dependency name that is no crate name',
        uploadBody(publishMeta('good', '1.0.0', { deps: [{ name: '../x', version_req: '1' }] }), crate),
        /deps\[0\]/,
      ],
      [
        'a tar entry outside <name>-<version>/',
        uploadBody(
          publishMeta('good', '1.0.0'),
          crateFile('good', '1.0.0', { extra: [['good-1.0.0/../../evil', 'x']] }),
        ),
        /outside good-1\.0\.0\//,
      ],
      [
        'a tar entry in another folder',
        uploadBody(publishMeta('good', '1.0.0'), crateFile('good', '1.0.0', { extra: [['other/Cargo.toml', 'x']] })),
        /outside/,
      ],
      [
        'a manifest naming another package',
        uploadBody(publishMeta('good', '1.0.0'), crateFile('good', '1.0.0', { manifest: { name: 'evil' } })),
        /names package "evil"/,
      ],
      [
        'a manifest with another version',
        uploadBody(publishMeta('good', '1.0.0'), crateFile('good', '1.0.0', { manifest: { version: '2.0.0' } })),
        /has version "2\.0\.0"/,
      ],
      [
        'a .crate for another version',
        uploadBody(publishMeta('good', '1.0.0'), crateFile('good', '2.0.0')),
        /outside good-1\.0\.0\//,
      ],
      [
        'no Cargo.toml',
        uploadBody(publishMeta('good', '1.0.0'), tarGz([['good-1.0.0/src/lib.rs', '']])),
        /no good-1\.0\.0\/Cargo\.toml/,
      ],
      ['a .crate that is not gzip', uploadBody(publishMeta('good', '1.0.0'), Buffer.from('not a crate')), /not gzip/],
      ['a cut body', body.subarray(0, body.length - 10), /not a cargo publish body/],
      [
        'metadata that is not JSON',
        Buffer.concat([Buffer.from([3, 0, 0, 0]), Buffer.from('{{{'), Buffer.from([0, 0, 0, 0])]),
        /not JSON/,
      ],
    ];
    for (const [what, b, message] of cases) {
      const r = await s.publish(b);
      t.equal(r.status, 400, what);
      t.equal(r.json().error?.code, 'bad_request', `${what}: code`);
      t.match(r.json().error?.message, message, `${what}: message`);
    }
    for (const path of [
      'api/v1/crates/..%2f..%2fetc/1.0.0/yank',
      'api/v1/crates/good/1.0.0%2f..%2f..%2fx/yank',
      'api/v1/crates/good/..',
    ]) {
      const r = await rawRequest(`${s.base}/${path}`, { method: 'DELETE', headers: { authorization: s.publisher } });
      t.equal(r.status, 400, `DELETE ${path}`);
    }
    await s.hub.hub.services.blocks.add({
      registry: 'crates',
      package_name: 'banned',
      version: null,
      reason: 'not here',
      by: 'admin',
    });
    const blocked = await s.publish(uploadBody(publishMeta('Banned', '1.0.0'), crateFile('Banned', '1.0.0')));
    t.equal(blocked.status, 403, 'a blocked crate name (read from the body) is refused');
    t.equal(blocked.json().error.code, 'package_blocked');
    const large = await s.publish(
      uploadBody(publishMeta('good', '1.0.0'), Buffer.concat([crate, crypto.randomBytes(200)])),
    );
    t.equal(large.status, 413, 'over max_publish_bytes');
    t.equal(large.json().error.code, 'payload_too_large');
    t.same(await s.hub.hub.db('artifacts').select('cache_key'), [], 'nothing was stored');
    t.same(await s.hub.hub.db('local_versions').select('name'), [], 'no version recorded');
    t.same(fs.readdirSync(s.hub.hub.blobs.tmpDir), [], 'no spool file left');

    t.equal((await s.publish(body)).status, 200, 'the good one, as a publisher');
    const full = await s.publish(uploadBody(publishMeta('second', '1.0.0'), crateFile('second', '1.0.0')));
    t.equal(full.status, 507, 'over quota_bytes');
    t.equal(full.json().error.code, 'insufficient_storage');
    t.equal(await s.indexLines('3/s/second'), 404, 'the refused crate left nothing visible');

    const proxy = await start(t, { mode: 'proxy' });
    t.notOk('api' in (await proxy.req('registry/config.json')).json(), 'a proxy registry names no api');
    const refused = await proxy.publish(body);
    t.equal(refused.status, 405, 'a proxy registry takes no publish');
    t.equal(refused.json().error.code, 'method_not_allowed');
    t.equal(
      (await proxy.req('api/v1/crates/form_urlencoded/1.1.0/yank', { method: 'DELETE', token: proxy.publisher }))
        .status,
      405,
      'nor a yank',
    );
  },
);

t.test(
  'hybrid: a crate published here replaces the upstream one (same version number, every -/_ spelling) and the upstream is not asked',
  async (t) => {
    const s = await start(t, { mode: 'hybrid' });
    // The upstream has the name: an administrator claims it for the registry first (decision 0043).
    await s.hub.hub.services.local.claim('crates', 'form_urlencoded', 'admin');
    const theirs = fixture(CRATE.form);
    const mine = crateFile('form_urlencoded', '1.1.0', { body: 'pub fn mine() {}\n' });
    t.equal((await s.publish(uploadBody(publishMeta('form_urlencoded', '1.1.0'), mine))).status, 200);

    const lines = await s.indexLines('fo/rm/form_urlencoded');
    t.match(
      lines,
      [{ name: 'form_urlencoded', vers: '1.1.0', cksum: sha256(mine) }],
      'only the local version, with its own cksum',
    );
    const dl = await s.req('api/v1/crates/form_urlencoded/1.1.0/download', { token: s.reader });
    t.same(dl.body, mine, 'the local .crate');
    t.notSame(dl.body, theirs);
    t.equal(await s.indexLines('fo/rm/form-urlencoded'), 404, 'another spelling of the name is not looked up upstream');
    t.equal(
      (await s.req('api/v1/crates/form-urlencoded/1.1.0/download', { token: s.reader })).status,
      404,
      'nor downloaded from it',
    );
    t.equal(
      s.upstream.count((r) => r.url.includes('form')),
      0,
      'the upstream was never asked about the name',
    );

    t.match(
      await s.indexLines('pe/rc/percent-encoding'),
      [{ name: 'percent-encoding', vers: '2.2.0' }],
      'other crates come from the upstream',
    );
    const pct = await s.req('api/v1/crates/percent-encoding/2.2.0/download', { token: s.reader });
    t.same(pct.body, fixture(CRATE.pct));
  },
);

t.test(
  'hybrid, local_only turned off: the index merges the upstream lines with the published ones; other spellings stay closed',
  async (t) => {
    const s = await start(t, { mode: 'hybrid' });
    const mine = crateFile('form_urlencoded', '1.0.0');
    const unclaimed = await s.publish(uploadBody(publishMeta('form_urlencoded', '1.0.0'), mine));
    t.equal(unclaimed.status, 409, 'not before an administrator claims the name the upstream has (decision 0043)');
    t.match(unclaimed.body.toString(), /name_exists_upstream/);
    await s.hub.hub.services.local.claim('crates', 'form_urlencoded', 'admin');
    // What the refused publish asked is forgotten: from the claim on, the name is never asked about.
    s.upstream.requests.splice(0);
    t.equal((await s.publish(uploadBody(publishMeta('form_urlencoded', '1.0.0'), mine))).status, 200);
    t.match(await s.indexLines('fo/rm/form_urlencoded'), [{ vers: '1.0.0' }], 'owned: only the local version');
    t.equal(
      s.upstream.count((r) => r.url.includes('form')),
      0,
    );

    t.ok(
      await s.hub.hub.services.local.setLocalOnly('crates', 'form_urlencoded', false),
      'an operator shares the name',
    );
    const lines = await s.indexLines('fo/rm/form_urlencoded');
    t.same(
      (lines as Array<Record<string, unknown>>).map((e) => [e.vers, e.cksum]),
      [
        ['1.1.0', JSON.parse(fixture('index/fo/rm/form_urlencoded').toString()).cksum],
        ['1.0.0', sha256(mine)],
      ],
      "the upstream's line, then the published one",
    );
    t.equal(s.upstream.count('/index/fo/rm/form_urlencoded'), 1, 'the upstream was asked');
    t.equal(await s.indexLines('fo/rm/form-urlencoded'), 404, 'the other spelling stays closed');
    t.equal(s.upstream.count('/index/fo/rm/form-urlencoded'), 0);
  },
);

t.test(
  'mergedIndex: upstream lines first, a local version replaces the upstream line with its number, unlisted ones are yanked',
  async (t) => {
    const upstream = Buffer.from(
      [
        '{"name":"a","vers":"1.0.0","cksum":"u1","yanked":false}',
        '',
        '{"name":"a","vers":"2.0.0","cksum":"u2","yanked":false}',
        '{"name":"a","vers":"3.0.0","cksum":"u3","yanked":false}',
      ].join('\n'),
    );
    const local = [
      {
        vers: '2.0.0',
        line: { name: 'a', vers: '2.0.0', deps: [], cksum: 'l2', features: {}, links: null },
        yanked: false,
      },
      {
        vers: '4.0.0',
        line: { name: 'a', vers: '4.0.0', deps: [], cksum: 'l4', features: {}, links: null },
        yanked: true,
      },
    ];
    const served = mergedIndex(local, upstream, new Set(['3.0.0']));
    const got = served.body
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    t.same(
      got.map((e) => [e.vers, e.cksum, e.yanked]),
      [
        ['1.0.0', 'u1', false],
        ['3.0.0', 'u3', true],
        ['2.0.0', 'l2', false],
        ['4.0.0', 'l4', true],
      ],
    );
    t.match(served.etag, /^"[0-9a-f]{64}"$/);
    t.not(mergedIndex(local, null, new Set()).etag, served.etag, 'the ETag follows the bytes');
  },
);
