import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import t, { type Test } from 'tap';
import { makeZip, rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import maven from '../src/index.js';
import { CORE, UPSTREAM } from './setup.js';
import publishing from '@hub/publishing';

/**
 * Issue 13 over HTTP, in the shape `mvn deploy` sends (the real mvn runs in publish-mvn.test.ts): files and
 * checksums, maven-metadata.xml generated from the database, the refusals every publishing kind shares, and a
 * hybrid registry's metadata merge.
 */
const GROUP_DIR = 'org/example/pub';
const NAME = 'org.example.pub:demo';
const DIR = `${GROUP_DIR}/demo`;
const hash = (algorithm: string, b: Buffer | string) => crypto.createHash(algorithm).update(b).digest('hex');

const pom = (
  o: { group?: string | null; artifact?: string; version?: string; parent?: string } = {},
) => `<?xml version="1.0"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  ${o.parent ? `<parent><groupId>${o.parent}</groupId><artifactId>parent</artifactId><version>1</version></parent>` : ''}
  ${o.group === null ? '' : `<groupId>${o.group ?? 'org.example.pub'}</groupId>`}
  <artifactId>${o.artifact ?? 'demo'}</artifactId>
  <version>${o.version ?? '1.0'}</version>
</project>
`;

/** A small valid jar (zip): one stored entry. */
const jar = (text = 'hello'): Buffer => makeZip({ 'a.txt': text });

/** A request with a body, its path sent exactly as written (so `%2e%2e` reaches hub encoded). */
function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: Buffer,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Polls `read` until it returns `want` (a generous bound: "soon", not a timing). */
async function soon<T>(read: () => Promise<T>, want: T, ms = 20_000, every = 200): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const got = await read();
    if (got === want || Date.now() > until) return got;
    await new Promise((r) => setTimeout(r, every));
  }
}

async function start(t: Test, registry: Record<string, unknown>) {
  const upstream = await startFixtureUpstream({ root: UPSTREAM });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [maven, publishing],
    registries: [
      { name: 'm', type: 'maven', ...(registry.mode === 'local' ? {} : { upstream: upstream.url }), ...registry },
    ],
  });
  t.teardown(() => hub.close());
  const publisher = await hub.token('ci', { roles: ['publisher'] });
  const reader = await hub.token('dev', { roles: ['reader'] });
  const repo = `${hub.url}/proxy/m/maven2`;
  /** Maven's style: Basic with any username and the token as the password. */
  const basic = (token: string) => ({ authorization: `Basic ${Buffer.from(`anyone:${token}`).toString('base64')}` });
  const put = async (path: string, body: Buffer | string, token: string | null = publisher, method = 'PUT') => {
    const r = await send(
      `${repo}/${path}`,
      method,
      token ? basic(token) : {},
      typeof body === 'string' ? Buffer.from(body) : body,
    );
    return {
      status: r.status,
      headers: r.headers,
      json: r.body.length ? (JSON.parse(r.body.toString()) as { error?: { code: string; message: string } }) : {},
    };
  };
  const get = (path: string, token = reader) => rawRequest(`${repo}/${path}`, { headers: basic(token) });
  return { hub: hub.hub, upstream, publisher, reader, put, get, repo };
}

/** What mvn deploy sends for one version: jar, its checksums, POM, its checksums, then maven-metadata.xml. */
async function deploy(
  s: Awaited<ReturnType<typeof start>>,
  version: string,
  files: { jar?: Buffer; pom?: string } = {},
) {
  const j = files.jar ?? jar(version);
  const p = Buffer.from(files.pom ?? pom({ version }));
  const statuses: number[] = [];
  for (const [file, bytes] of [
    [`demo-${version}.jar`, j],
    [`demo-${version}.pom`, p],
  ] as const) {
    statuses.push((await s.put(`${DIR}/${version}/${file}`, bytes)).status);
    for (const a of ['sha1', 'md5'])
      statuses.push((await s.put(`${DIR}/${version}/${file}.${a}`, hash(a, bytes))).status);
  }
  const meta = `<metadata><groupId>org.example.pub</groupId><artifactId>demo</artifactId><versioning><release>${version}</release><versions><version>${version}</version><version>99.0</version></versions></versioning></metadata>`;
  statuses.push((await s.put(`${DIR}/maven-metadata.xml`, meta)).status);
  statuses.push((await s.put(`${DIR}/maven-metadata.xml.sha1`, hash('sha1', meta))).status);
  return { statuses, jar: j, pom: p };
}

t.test(
  'a deploy to a local registry: files and every checksum come back, the version is recorded, metadata is generated',
  async (t) => {
    const s = await start(t, { mode: 'local' });
    const d = await deploy(s, '1.0');
    t.same(d.statuses, [201, 201, 201, 201, 201, 201, 201, 201], 'every PUT is taken');
    const back = await s.get(`${DIR}/1.0/demo-1.0.jar`);
    t.equal(back.status, 200);
    t.same(back.body, d.jar, 'the same jar');
    for (const a of ['sha1', 'md5', 'sha256', 'sha512']) {
      const sum = await s.get(`${DIR}/1.0/demo-1.0.jar.${a}`);
      t.equal(sum.body.toString(), hash(a, d.jar), `the jar's ${a}`);
      t.equal((await s.get(`${DIR}/1.0/demo-1.0.pom.${a}`)).body.toString(), hash(a, d.pom), `the POM's ${a}`);
    }
    t.same(await s.hub.db('local_versions').select('name', 'version', 'publisher'), [
      { name: NAME, version: '1.0', publisher: 'ci' },
    ]);

    await deploy(s, '1.2');
    await deploy(s, '1.10');
    const meta = await s.get(`${DIR}/maven-metadata.xml`);
    t.equal(meta.status, 200);
    const xml = meta.body.toString();
    t.match(xml, /<groupId>org\.example\.pub<\/groupId>\s*<artifactId>demo<\/artifactId>/);
    t.match(
      xml,
      /<versions>\s*<version>1\.0<\/version>\s*<version>1\.2<\/version>\s*<version>1\.10<\/version>\s*<\/versions>/,
      'in Maven order',
    );
    t.match(xml, /<latest>1\.10<\/latest>\s*<release>1\.10<\/release>/);
    t.match(xml, /<lastUpdated>\d{14}<\/lastUpdated>/);
    t.notMatch(xml, /99\.0/, 'not the document the client PUT');
    for (const a of ['sha1', 'md5', 'sha256', 'sha512'])
      t.equal((await s.get(`${DIR}/maven-metadata.xml.${a}`)).body.toString(), hash(a, meta.body), `metadata ${a}`);

    await s.hub.services.unlisting.add({ registry: 'm', package_name: NAME, version: '1.10' }, 'admin');
    const unlisted = (await s.get(`${DIR}/maven-metadata.xml`)).body.toString();
    t.notMatch(unlisted, /1\.10/, 'an unlisted version leaves the generated listing');
    t.match(unlisted, /<release>1\.2<\/release>/);
    t.ok(
      await s.hub.services.local
        .forRegistry('m', { maxPublishBytes: 1e6, quotaBytes: 0 }, 'admin')
        .updateVersion(NAME, '1.2', { yanked: true }),
    );
    t.notMatch(
      (await s.get(`${DIR}/maven-metadata.xml`)).body.toString(),
      /<version>1\.2<\/version>/,
      'a yanked version leaves it too',
    );

    await s.hub.audit.flush();
    const rows = await s.hub
      .db('access_events')
      .where({ action: 'publish' })
      .orderBy('id')
      .select('user_id', 'package', 'version');
    t.same(
      rows.map((r) => r.version),
      ['1.0', '1.2', '1.10'],
      'one audit row per version (when its POM arrives)',
    );
    t.equal(rows[0]?.user_id, 'ci');
    const uploads = await s.hub
      .db('access_events')
      .where({ action: 'upload', version: '1.0' })
      .count({ n: '*' })
      .first();
    t.equal(
      Number(uploads?.n),
      5,
      'the jar and the four checksum PUTs of 1.0 are upload rows (the POM is the publish)',
    );
    t.equal(
      (await s.hub.db('events').where({ type: 'package_published' })).length,
      3,
      'a package_published event each',
    );
  },
);

t.test(
  'the refusals: proxy, tokens, duplicates, tombstones, traversal, POMs, checksums, SNAPSHOTs, size',
  async (t) => {
    const s = await start(t, { mode: 'local', max_publish_bytes: 4000 });
    const p1 = pom();
    t.equal((await s.put(`${DIR}/1.0/demo-1.0.pom`, p1, null)).status, 401, 'no token');
    const anonymous = await s.put(`${DIR}/1.0/demo-1.0.pom`, p1, null);
    t.match(String(anonymous.headers['www-authenticate']), /^Basic/, 'the 401 challenges for Basic, which mvn answers');
    t.equal((await s.put(`${DIR}/1.0/demo-1.0.pom`, p1, s.reader)).status, 403, 'a reader may not deploy');

    const bad = async (path: string, body: string | Buffer, why: RegExp, msg: string) => {
      const r = await s.put(path, body);
      t.equal(r.status, 400, msg);
      t.equal(r.json.error?.code, 'bad_request', msg);
      t.match(r.json.error?.message, why, msg);
    };
    await bad(
      `${DIR}/1.0/demo-1.0.pom`,
      pom({ version: '2.0' }),
      /version "2\.0" \(the path says "1\.0"\)/,
      'a POM whose version disagrees with its path',
    );
    await bad(
      `${DIR}/1.0/demo-1.0.pom`,
      pom({ group: 'org.other' }),
      /groupId "org\.other"/,
      'a POM whose groupId disagrees',
    );
    await bad(
      `${DIR}/1.0/demo-1.0.pom`,
      pom({ artifact: 'other' }),
      /artifactId "other"/,
      'a POM whose artifactId disagrees',
    );
    await bad(`${DIR}/1.0/demo-1.0.pom`, pom({ group: null }), /no groupId/, 'a POM without a groupId');
    await bad(
      `${DIR}/1.0/demo-1.0.pom`,
      '<!DOCTYPE project [<!ENTITY x "y">]><project/>',
      /DOCTYPE/,
      'a POM with a DOCTYPE',
    );
    await bad(`${DIR}/1.0/demo-1.0.pom`, '<html><body>hi</body></html>', /POM/, 'not a POM');
    await bad(`${DIR}/1.0/demo-1.0.jar`, 'not a zip', /zip/, 'a jar that is not a zip');
    await bad(
      `${DIR}/1.0/other-1.0.jar`,
      jar(),
      /not a file of org\.example\.pub:demo:1\.0/,
      'a file outside its version folder',
    );
    await bad(`${DIR}/1.0/demo-2.0.jar`, jar(), /not a file of/, 'a file of another version');
    await bad(`${DIR}/1.0-SNAPSHOT/demo-1.0-20261125.120000-1.jar`, jar(), /SNAPSHOT/, 'a SNAPSHOT deploy');
    await bad(`${DIR}/1.0-SNAPSHOT/maven-metadata.xml`, '<metadata/>', /SNAPSHOT/, 'SNAPSHOT metadata');
    await bad(`${DIR}/1.0/demo-1.0.jar.sha1`, hash('sha1', 'x'), /not published here/, 'a checksum before its file');
    for (const path of [
      `${GROUP_DIR}/%2e%2e/%2e%2e/demo/1.0/demo-1.0.pom`,
      `${GROUP_DIR}/demo/1.0/..%2f..%2fdemo-1.0.pom`,
      `org/ex.ample/demo/1.0/demo-1.0.pom`,
    ]) {
      const res = await s.put(path, p1);
      t.equal(res.status, 400, `a path that leaves its place: ${path}`);
    }

    // The parent's groupId stands in for a missing one.
    t.equal(
      (await s.put(`${DIR}/1.0/demo-1.0.pom`, pom({ group: null, parent: 'org.example.pub' }))).status,
      201,
      'a groupId inherited from the parent',
    );
    t.equal((await s.put(`${DIR}/1.0/demo-1.0.pom`, p1)).status, 409, 'a duplicate POM');
    const j = jar();
    t.equal((await s.put(`${DIR}/1.0/demo-1.0.jar`, j)).status, 201);
    t.equal((await s.put(`${DIR}/1.0/demo-1.0.jar`, j)).status, 409, 'a duplicate jar');
    t.equal(
      (await s.put(`${DIR}/1.0/demo-1.0.jar.sha1`, `${hash('sha1', j).toUpperCase()}  demo-1.0.jar\n`)).status,
      201,
      'a matching checksum (any case, with a file name)',
    );
    await bad(
      `${DIR}/1.0/demo-1.0.jar.sha1`,
      hash('sha1', 'other'),
      /does not match/,
      'a checksum that does not match',
    );
    await bad(`${DIR}/1.0/demo-1.0.jar.md5`, 'nonsense', /not a md5 checksum/, 'a checksum file that is not one');
    t.equal(
      (await s.get(`${DIR}/1.0/demo-1.0.jar.sha1`)).body.toString(),
      hash('sha1', j),
      "the stored checksum is hub's own",
    );

    const large = await s.put(`${DIR}/2.0/demo-2.0.jar`, Buffer.alloc(5000));
    t.equal(large.status, 413, 'past max_publish_bytes');
    t.equal(large.json.error?.code, 'payload_too_large');
    // Chunked, so only the bytes tell: refused once they pass the cap, and the request does not hang.
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        `${s.repo}/${DIR}/2.0/demo-2.0-big.jar`,
        { method: 'PUT', headers: { authorization: `Bearer ${s.publisher}` } },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 10; i++) req.write(Buffer.alloc(1000));
      req.end();
    });
    t.equal(chunked, 413, 'a chunked body past max_publish_bytes');

    // Delete (DELETE of the version folder, as other repository managers take it): the number is gone for ever.
    t.equal((await s.put(`${DIR}/1.0/`, '', s.reader, 'DELETE')).status, 403, 'a reader may not delete');
    t.equal((await s.put(`${DIR}/1.0/`, '', s.publisher, 'DELETE')).status, 200, 'the version is deleted');
    t.equal((await s.get(`${DIR}/1.0/demo-1.0.jar`)).status, 404, 'its files are gone');
    // A published row served a moment ago is remembered for about a second on each replica (as blocks are), and
    // each hit renews that memo, so this asks less often than once a second (see the report to the core).
    t.equal(
      await soon(async () => (await s.get(`${DIR}/1.0/demo-1.0.jar.sha1`)).status, 404, 20_000, 1500),
      404,
      'and their checksums, soon',
    );
    t.equal((await s.get(`${DIR}/maven-metadata.xml`)).status, 404, 'nothing is listed');
    const again = await s.put(`${DIR}/1.0/demo-1.0.pom`, p1);
    t.equal(again.status, 409, 'a deleted version is never published again');
    t.match(again.json.error?.message, /deleted/);
    t.equal((await s.put(`${DIR}/1.0/demo-1.0.jar`, j)).status, 409, 'nor any file of it');
    t.equal(
      (await s.put(`${DIR}/1.1/demo-1.1.pom`, pom({ version: '1.1' }))).status,
      201,
      'the name may publish other versions',
    );
    t.same(await s.hub.db('local_tombstones').select('name', 'version', 'deleted_by'), [
      { name: NAME, version: '1.0', deleted_by: 'ci' },
    ]);
    t.same(fs.readdirSync(s.hub.blobs.tmpDir), [], 'no spool file left');

    const proxy = await start(t, { mode: 'proxy' });
    const refused = await proxy.put(`${DIR}/1.0/demo-1.0.pom`, p1);
    t.equal(refused.status, 405, 'a proxy registry takes no deploy');
    t.equal(refused.json.error?.code, 'method_not_allowed');
    t.equal((await proxy.put(`${DIR}/1.0/`, '', proxy.publisher, 'DELETE')).status, 405);
  },
);

t.test(
  'hybrid: a name published here is never asked of the upstream; one marked not local_only merges both listings',
  async (t) => {
    const s = await start(t, { mode: 'hybrid' });
    const NAME2 = 'org.hamcrest:hamcrest-core';
    // The upstream has the name: an administrator claims it for the registry first (decision 0043).
    const unclaimed = await s.put(`${CORE}/1.3/hamcrest-core-1.3.jar`, jar('1.3'));
    t.equal(unclaimed.status, 409, 'not before an administrator claims the artifact the upstream has');
    t.equal(unclaimed.json.error?.code, 'name_exists_upstream');
    await s.hub.services.local.claim('m', NAME2, 'admin');
    // What the refused publish asked is forgotten: from the claim on, the name is never asked about.
    s.upstream.requests.splice(0);
    const p = (v: string) =>
      `<project><modelVersion>4.0.0</modelVersion><groupId>org.hamcrest</groupId><artifactId>hamcrest-core</artifactId><version>${v}</version></project>`;
    const mine = Buffer.from(p('1.3'));
    t.equal((await s.put(`${CORE}/1.3/hamcrest-core-1.3.pom`, mine)).status, 201, 'a version the upstream also has');
    t.equal((await s.put(`${CORE}/5.0-internal/hamcrest-core-5.0-internal.pom`, p('5.0-internal'))).status, 201);

    const owned = (await s.get(`${CORE}/maven-metadata.xml`)).body.toString();
    t.match(
      owned,
      /<versions>\s*<version>1\.3<\/version>\s*<version>5\.0-internal<\/version>\s*<\/versions>/,
      'only the local versions',
    );
    t.same((await s.get(`${CORE}/1.3/hamcrest-core-1.3.pom`)).body, mine, 'the local POM wins');
    t.equal(
      (await s.get(`${CORE}/1.3/hamcrest-core-1.3.jar`)).status,
      404,
      'a file not published here is not fetched for an owned name',
    );
    t.equal(s.upstream.count(`/${CORE}/`), 0, 'the upstream was never asked about the name');

    // An operator may let the upstream serve the name again (local_only off): the listings merge.
    t.ok(await s.hub.services.local.setLocalOnly('m', NAME2, false));
    const merged = (await s.get(`${CORE}/maven-metadata.xml`)).body.toString();
    t.match(
      merged,
      /<versions>\s*<version>1\.1<\/version>\s*<version>1\.2<\/version>\s*<version>1\.3\.RC2<\/version>\s*<version>1\.3<\/version>\s*<version>5\.0-internal<\/version>\s*<\/versions>/,
      'upstream and local, each once',
    );
    t.match(merged, /<release>5\.0-internal<\/release>/);
    t.equal(
      (await s.get(`${CORE}/maven-metadata.xml.sha1`)).body.toString(),
      hash('sha1', Buffer.from(merged)),
      'its checksum',
    );
    t.same(
      (await s.get(`${CORE}/1.3/hamcrest-core-1.3.pom`)).body,
      mine,
      'the local version still wins over the upstream one of the same number',
    );
    t.equal((await s.get(`${CORE}/1.3/hamcrest-core-1.3.jar`)).status, 200, 'other files come from the upstream');
  },
);

t.test(
  "a stored file is never replaced, and a version being deployed is its first publisher's until complete or expired (#26)",
  async (t) => {
    const s = await start(t, { mode: 'local', deploy_expiry_secs: 2 });
    await s.hub.services.users.create({ id: 'rival', roles: ['publisher'] });
    const rival = (await s.hub.services.tokens.issue({ user_id: 'rival' })).token;
    const legit = jar('3.0');
    const evil = Buffer.concat([legit, Buffer.from('EVIL')]);
    t.equal((await s.put(`${DIR}/3.0/demo-3.0.jar`, legit)).status, 201, 'the legit jar, before its POM');

    const hijack = await s.put(`${DIR}/3.0/demo-3.0.jar`, evil, rival);
    t.equal(hijack.status, 403, 'another publisher cannot replace it');
    t.match(hijack.json.error?.message, /being deployed by another publisher/);
    t.equal((await s.put(`${DIR}/3.0/demo-3.0-sources.jar`, evil, rival)).status, 403, 'nor add a file to the version');
    t.equal(
      (await s.put(`${DIR}/3.0/demo-3.0.pom`, pom({ version: '3.0' }), rival)).status,
      403,
      'nor complete it with its POM',
    );

    const changed = await s.put(`${DIR}/3.0/demo-3.0.jar`, evil);
    t.equal(changed.status, 409, 'the first publisher cannot change the bytes either');
    t.match(changed.json.error?.message, /never replaced/);
    t.equal(
      (await s.put(`${DIR}/3.0/demo-3.0.jar`, legit)).status,
      201,
      'the same bytes again: a retried upload is taken',
    );
    t.same((await s.get(`${DIR}/3.0/demo-3.0.jar`)).body, legit, 'readers get the legit jar');

    await new Promise((r) => setTimeout(r, 2500));
    const late = await s.put(`${DIR}/3.0/demo-3.0.jar`, evil, rival);
    t.equal(late.status, 409, 'once the deploy expired, the stored jar still never changes');
    t.equal(
      (await s.put(`${DIR}/3.0/demo-3.0.pom`, pom({ version: '3.0' }), rival)).status,
      201,
      'but another publisher may complete the abandoned version',
    );
    t.same((await s.get(`${DIR}/3.0/demo-3.0.jar`)).body, legit, 'with the legit jar');
    t.equal((await s.put(`${DIR}/3.0/demo-3.0.jar`, legit)).status, 409, 'a complete version takes no file at all');
    t.same(await s.hub.db('local_deploys').select('version'), [], 'no deploy is left open');
  },
);
