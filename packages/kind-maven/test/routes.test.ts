import crypto from 'node:crypto';
import fs from 'node:fs';
import t from 'tap';
import { CORE, CORE_JAR, CORE_POM, get, OPEN, setup, UPSTREAM, type MavenSetup } from './setup.js';

const hash = (alg: string, b: Buffer | string) => crypto.createHash(alg).update(b).digest('hex');
const fixture = (p: string) => fs.readFileSync(`${UPSTREAM}${p}`);
const isZip = (b: Buffer) => b[0] === 0x50 && b[1] === 0x4b && b[2] === 3 && b[3] === 4;
const cachedRow = async (s: MavenSetup, key: string) => {
  await s.hub.artifacts.idle();
  return s.hub.db('artifacts').where({ registry: 'maven', cache_key: key }).first();
};
/** Faults match URL prefixes; this matches one exact path (so `x.pom` does not also hit `x.pom.sha1`). */
const exact = (p: string) => new RegExp(`^/${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
const upstreamGets = (s: MavenSetup, p: string) => s.upstream.count((r) => r.method === 'GET' && r.url === `/${p}`);

t.test('packages/kind-maven/README.md / 4.3: maven-metadata.xml has <metadata>, the POM has <project>', async (t) => {
  const s = await setup(t, { config: OPEN });
  const meta = await get(`${s.repo}/${CORE}/maven-metadata.xml`);
  t.equal(meta.status, 200);
  t.match(meta.headers.get('content-type'), /xml/);
  t.match(meta.body.toString(), /<metadata>[\s\S]*<\/metadata>/);
  t.same(meta.body, fixture(`${CORE}/maven-metadata.xml`), 'nothing unlisted: the upstream bytes');

  const pom = await get(`${s.repo}/${CORE_POM}`);
  t.equal(pom.status, 200);
  t.match(pom.headers.get('content-type'), /xml/);
  t.match(pom.body.toString(), /<project[\s>][\s\S]*<\/project>/);
  t.same(pom.body, fixture(CORE_POM));
  t.same(
    s.upstream.requests.map((r) => r.url),
    [`/${CORE}/maven-metadata.xml`, `/${CORE_POM}.sha1`, `/${CORE_POM}`],
    'the .sha1 first, then the POM',
  );
});

t.test('a jar is verified against the upstream .sha1, cached, and its checksum served from the cache', async (t) => {
  const s = await setup(t, { config: OPEN });
  const jar = await get(`${s.repo}/${CORE_JAR}`);
  t.equal(jar.status, 200);
  t.ok(isZip(jar.body), 'PK 03 04');
  t.same(jar.body, fixture(CORE_JAR));
  t.equal(jar.headers.get('content-type'), 'application/java-archive');
  t.ok(await cachedRow(s, CORE_JAR), 'cached');

  const sha1 = await get(`${s.repo}/${CORE_JAR}.sha1`);
  t.equal(sha1.status, 200);
  t.equal(sha1.body.toString(), hash('sha1', jar.body), 'the checksum mvn asks for next matches the bytes');
  t.equal(sha1.headers.get('x-hub-cache'), 'hit', 'fetched once, while verifying the jar');

  const again = await get(`${s.repo}/${CORE_JAR}`);
  t.equal(again.headers.get('x-hub-cache'), 'hit');
  t.equal(upstreamGets(s, CORE_JAR), 1, 'the jar left the upstream once');
  t.equal(upstreamGets(s, `${CORE_JAR}.sha1`), 1);

  const md5 = await get(`${s.repo}/${CORE_JAR}.md5`);
  t.equal(md5.status, 404, 'the upstream has no .md5');
  t.equal(md5.json().error.code, 'not_found');

  const head = await get(`${s.repo}/${CORE_JAR}`, {}, 'HEAD');
  t.equal(head.status, 200);
  t.equal(head.headers.get('content-length'), String(fixture(CORE_JAR).length));
  t.equal(head.body.length, 0);
});

t.test('wrong registry, wrong kind, unknown paths and absent items are 404', async (t) => {
  const s = await setup(t, { config: OPEN });
  const cases = [
    `${s.url}/proxy/nope/maven2/${CORE_POM}`,
    `${s.url}/proxy/other/maven2/${CORE_POM}`,
    `${s.url}/proxy/other/maven2/${CORE}/maven-metadata.xml`,
    `${s.url}/proxy/maven/ping`,
    `${s.url}/proxy/maven/maven1/${CORE_POM}`,
    `${s.repo}/${CORE}/9.9/hamcrest-core-9.9.pom`,
    `${s.repo}/${CORE}/9.9/hamcrest-core-9.9.jar`,
    `${s.repo}/org/example/absent/maven-metadata.xml`,
    `${s.repo}/${CORE}/1.3/hamcrest-core-1.3-sources.jar`,
    `${s.repo}/${CORE}/maven-metadata.xml.asc`,
  ];
  for (const url of cases) {
    const res = await get(url);
    t.equal(res.status, 404, url);
    t.equal(res.json().error.code, 'not_found', `${url} code`);
  }
  t.equal((await get(`${s.url}/proxy/other/ping`)).status, 200, 'control: the other registry answers its own route');
});

t.test('upstream failing: 502 with nothing cached, the cached copy otherwise', async (t) => {
  const s = await setup(t, { config: OPEN, registry: { metadata_ttl_secs: 0 } });
  s.upstream.fault('/', { type: 'status', status: 500 });
  for (const p of [CORE_JAR, CORE_POM, `${CORE}/maven-metadata.xml`]) {
    const res = await get(`${s.repo}/${p}`);
    t.equal(res.status, 502, p);
    t.equal(res.json().error.code, 'upstream_error');
    t.notMatch(res.body.toString(), /at .*\.js:\d+/, 'no stack trace');
  }
  t.notOk(await cachedRow(s, CORE_JAR), 'nothing cached');
  s.upstream.clearFaults();
  s.upstream.fault(exact(CORE_JAR), { type: 'status', status: 502 });
  const jarOnly = await get(`${s.repo}/${CORE_JAR}`);
  t.equal(jarOnly.status, 502, 'the jar failing while its .sha1 answers');
  t.match(jarOnly.json().error.message, /upstream answered 502/);
  s.upstream.clearFaults();
  t.equal((await get(`${s.repo}/${CORE_JAR}`)).status, 200);
  t.equal((await get(`${s.repo}/${CORE}/maven-metadata.xml`)).status, 200);

  s.upstream.fault('/', { type: 'status', status: 503 });
  const jar = await get(`${s.repo}/${CORE_JAR}`);
  t.equal(jar.status, 200, 'the cached jar is served');
  t.same(jar.body, fixture(CORE_JAR));
  const meta = await get(`${s.repo}/${CORE}/maven-metadata.xml`);
  t.equal(meta.status, 200, 'the last good metadata is served');
  t.equal(meta.headers.get('x-hub-stale'), '1', 'marked stale');
  const sum = await get(`${s.repo}/${CORE}/maven-metadata.xml.sha1`);
  t.equal(sum.body.toString(), hash('sha1', meta.body), 'its checksum too');
  s.upstream.down();
  t.equal((await get(`${s.repo}/${CORE_JAR}`)).status, 200, 'even with the upstream gone');
});

t.test('a 200 HTML page is never cached', async (t) => {
  const s = await setup(t, { config: OPEN });
  for (const p of [
    CORE_POM,
    CORE_JAR,
    `${CORE}/maven-metadata.xml`,
    'org/hamcrest/hamcrest-parent/1.3/hamcrest-parent-1.3.pom',
  ]) {
    s.upstream.fault(exact(p), { type: 'html200' });
    const res = await get(`${s.repo}/${p}`);
    t.equal(res.status, 502, `${p}: refused`);
    t.equal(res.json().error.code, 'upstream_error');
  }
  t.notOk(await cachedRow(s, CORE_POM));
  t.notOk(await cachedRow(s, CORE_JAR));
  s.upstream.clearFaults();
  const pom = await get(`${s.repo}/${CORE_POM}`);
  t.equal(pom.status, 200);
  t.equal(pom.headers.get('x-hub-cache'), 'miss', 'fetched again: the HTML was not kept');
  t.same(pom.body, fixture(CORE_POM));
  const meta = await get(`${s.repo}/${CORE}/maven-metadata.xml`);
  t.equal(meta.status, 200);
  t.match(meta.body.toString(), /<metadata>/);
});

t.test('a body that does not match the upstream .sha1 is refused and not cached', async (t) => {
  const s = await setup(t, { config: OPEN });
  const tiny = 'org/example/tiny/1.0/tiny-1.0.pom';
  // Under 512 bytes, so the digest is checked before hub answers at all.
  s.upstream.fault(exact(tiny), { type: 'wrong-bytes' }, 1);
  const bad = await get(`${s.repo}/${tiny}`);
  t.equal(bad.status, 502);
  t.match(bad.json().error.message, /sha1 mismatch/);
  t.notOk(await cachedRow(s, tiny), 'not cached');
  const good = await get(`${s.repo}/${tiny}`);
  t.equal(good.status, 200);
  t.same(good.body, fixture(tiny));

  // A large jar is streamed while it arrives: the client must never get a complete wrong body.
  s.upstream.fault(exact(CORE_JAR), { type: 'wrong-bytes' }, 1);
  const streamed = await get(`${s.repo}/${CORE_JAR}`).then(
    (r) => r,
    (e: Error) => e,
  );
  // A cut after the headers is a reset, never a refused connection (which would mean the hub was not there).
  if (streamed instanceof Error)
    t.equal(
      (streamed as NodeJS.ErrnoException).code,
      'ECONNRESET',
      `the connection was cut mid-answer (${streamed.message})`,
    );
  else {
    t.not(streamed.status, 200, 'not a 200');
    t.equal(streamed.status, 502);
  }
  t.notOk(await cachedRow(s, CORE_JAR), 'not cached');
  const jar = await get(`${s.repo}/${CORE_JAR}`);
  t.equal(jar.status, 200);
  t.same(jar.body, fixture(CORE_JAR));
});

t.test(
  'a wrong upstream .sha1 is not pinned: the file it failed drops it, and the next request fetches both again',
  async (t) => {
    const s = await setup(t, { config: OPEN });
    const tiny = 'org/example/tiny/1.0/tiny-1.0.pom';
    s.upstream.fault(exact(`${tiny}.sha1`), { type: 'status', status: 200, body: `${'0'.repeat(40)}\n` }, 1);
    const bad = await get(`${s.repo}/${tiny}`);
    t.equal(bad.status, 502, 'the file does not match the wrong checksum');
    t.match(bad.json().error.message, /sha1 mismatch/);
    await s.hub.artifacts.idle();
    t.notOk(await cachedRow(s, `${tiny}.sha1`), 'the wrong checksum left the cache with it');
    // The upstream is right again (the fault was for one request).
    const good = await get(`${s.repo}/${tiny}`);
    t.equal(good.status, 200, 'the file is served once the upstream is fixed, with no purge');
    t.same(good.body, fixture(tiny));
    const sum = await get(`${s.repo}/${tiny}.sha1`);
    t.equal(
      sum.body.toString().trim().slice(0, 40),
      hash('sha1', fixture(tiny)),
      'and the corrected checksum is served',
    );
    t.equal(upstreamGets(s, `${tiny}.sha1`), 2, 'the checksum was fetched again');
  },
);

t.test(
  'a wrong upstream .sha1 is dropped before the 502 is sent: a client retrying at once gets the refetched file (#26)',
  async (t) => {
    const s = await setup(t, { config: OPEN });
    const tiny = 'org/example/tiny/1.0/tiny-1.0.pom';
    s.upstream.fault(exact(`${tiny}.sha1`), { type: 'status', status: 200, body: `${'0'.repeat(40)}\n` }, 1);
    const bad = await get(`${s.repo}/${tiny}`);
    t.equal(bad.status, 502, 'the file does not match the wrong checksum');
    t.match(bad.json().error.message, /sha1 mismatch/);
    // No waiting for hub's background work: the retry comes right after the answer, as mvn's does.
    const retry = await get(`${s.repo}/${tiny}`);
    t.equal(retry.status, 200, 'the retry right after the 502 is served');
    t.same(retry.body, fixture(tiny), 'with the right bytes');
    t.equal(upstreamGets(s, `${tiny}.sha1`), 2, 'the checksum was fetched again for it');
    const sum = await get(`${s.repo}/${tiny}.sha1`);
    t.equal(
      sum.body.toString().trim().slice(0, 40),
      hash('sha1', fixture(tiny)),
      'and the corrected checksum is what is cached',
    );

    // A large jar is streamed while it arrives: the cut connection, too, comes only after the checksum is gone.
    s.upstream.fault(exact(`${CORE_JAR}.sha1`), { type: 'status', status: 200, body: `${'1'.repeat(40)}\n` }, 1);
    const streamed = await get(`${s.repo}/${CORE_JAR}`).then(
      (r) => r.status,
      (e: NodeJS.ErrnoException) => e.code,
    );
    t.not(streamed, 200, `the jar failing its wrong checksum is not a 200 (${streamed})`);
    const jar = await get(`${s.repo}/${CORE_JAR}`);
    t.equal(jar.status, 200, 'the retry right after the cut is served');
    t.same(jar.body, fixture(CORE_JAR));
  },
);

t.test('without an upstream .sha1 only the structural checks apply; a failing .sha1 refuses the file', async (t) => {
  const s = await setup(t, { config: OPEN });
  const parent = 'org/hamcrest/hamcrest-parent/1.3/hamcrest-parent-1.3.pom';
  const res = await get(`${s.repo}/${parent}`);
  t.equal(res.status, 200);
  t.same(res.body, fixture(parent));
  t.equal(upstreamGets(s, `${parent}.sha1`), 1, 'the .sha1 was asked for (404)');
  t.ok(await cachedRow(s, parent), 'cached');

  s.upstream.fault(`/${CORE_JAR}.sha1`, { type: 'status', status: 500 });
  const jar = await get(`${s.repo}/${CORE_JAR}`);
  t.equal(jar.status, 502, 'an unknown digest is not "no digest"');
  t.equal(upstreamGets(s, CORE_JAR), 0, 'the jar itself was not even fetched');
  s.upstream.clearFaults();
  s.upstream.fault(`/${CORE_JAR}.sha1`, { type: 'status', status: 200, body: '<html>not a checksum</html>' });
  t.equal((await get(`${s.repo}/${CORE_JAR}`)).status, 502, 'a .sha1 that is not a checksum');
  t.notOk(await cachedRow(s, `${CORE_JAR}.sha1`), 'and it is not cached either');
});

t.test('blocked coordinates: 403 package_blocked, before any upstream request', async (t) => {
  const s = await setup(t, { config: OPEN });
  const block = (package_name: string, version: string | null) =>
    s.hub.services.blocks.add({ registry: 'maven', package_name, version, reason: 'test', by: 'admin' });
  await block('org.hamcrest:hamcrest-core', '1.3');
  for (const p of [CORE_JAR, CORE_POM, `${CORE_JAR}.sha1`]) {
    const res = await get(`${s.repo}/${p}`);
    t.equal(res.status, 403, p);
    t.equal(res.json().error.code, 'package_blocked');
    t.match(res.json().error.message, /blocked by admin/);
  }
  t.equal(s.upstream.count(), 0, 'nothing was asked upstream');
  t.equal((await get(`${s.repo}/${CORE}/maven-metadata.xml`)).status, 200, 'a version block leaves the listing');

  const parent = 'org/hamcrest/hamcrest-parent/1.3/hamcrest-parent-1.3.pom';
  t.equal((await get(`${s.repo}/${parent}`)).status, 200, 'cached before the block');
  await block('org.hamcrest:hamcrest-parent', null);
  const refused = await get(`${s.repo}/${parent}`);
  t.equal(refused.status, 403, 'a cached artifact is refused too');
  t.equal(refused.json().error.code, 'package_blocked');
  t.equal(
    (await get(`${s.repo}/org/hamcrest/hamcrest-parent/maven-metadata.xml`)).status,
    403,
    'a package block covers the metadata',
  );
});

t.test('unlisted versions leave maven-metadata.xml; its checksums match the served bytes', async (t) => {
  const s = await setup(t, { config: OPEN });
  await s.hub.services.unlisting.add(
    { registry: 'maven', package_name: 'org.hamcrest:hamcrest-core', version: '1.3' },
    'admin',
  );
  const meta = await get(`${s.repo}/${CORE}/maven-metadata.xml`);
  t.equal(meta.status, 200);
  const xml = meta.body.toString();
  t.notMatch(xml, /<version>1\.3<\/version>/, '1.3 is gone');
  t.match(xml, /<version>1\.2<\/version>/);
  t.match(xml, /<latest>1\.3\.RC2<\/latest>/);
  t.match(xml, /<release>1\.3\.RC2<\/release>/);
  for (const alg of ['sha1', 'md5', 'sha256', 'sha512']) {
    const sum = await get(`${s.repo}/${CORE}/maven-metadata.xml.${alg}`);
    t.equal(sum.status, 200, alg);
    t.equal(sum.body.toString(), hash(alg, meta.body), `${alg} of the served document`);
    t.not(sum.body.toString(), hash(alg, fixture(`${CORE}/maven-metadata.xml`)), `${alg} is not the upstream's`);
  }
  t.equal(upstreamGets(s, `${CORE}/maven-metadata.xml`), 1, 'one upstream fetch for the document and its checksums');
  t.equal(
    s.upstream.count((r) => r.url.includes('maven-metadata.xml.')),
    0,
    'upstream metadata checksums are never used',
  );
  const pinned = await get(`${s.repo}/${CORE_JAR}`);
  t.equal(pinned.status, 200, 'an unlisted version stays downloadable by exact version');
});

t.test('maven-metadata.xml is mutable (registry TTL); artifacts are not', async (t) => {
  const s = await setup(t, { config: OPEN, registry: { metadata_ttl_secs: 0 } });
  const first = await get(`${s.repo}/${CORE}/maven-metadata.xml`);
  t.match(first.body.toString(), /<latest>1\.3<\/latest>/);
  const second = await get(`${s.repo}/${CORE}/maven-metadata.xml`);
  t.same(second.body, first.body);
  const revalidation = s.upstream.requests.filter((r) => r.url === `/${CORE}/maven-metadata.xml`)[1];
  t.ok(revalidation?.headers['if-none-match'], 'revalidated with the ETag');

  const newer = fixture(`${CORE}/maven-metadata.xml`)
    .toString()
    .replace('<version>1.3</version>', '<version>1.3</version>\n      <version>1.4</version>')
    .replace(/1\.3<\/(latest|release)>/g, '1.4</$1>');
  s.upstream.fault(exact(`${CORE}/maven-metadata.xml`), {
    type: 'status',
    status: 200,
    body: newer,
    headers: { 'content-type': 'application/xml' },
  });
  const third = await get(`${s.repo}/${CORE}/maven-metadata.xml`);
  t.equal(third.body.toString(), newer, 'the new upstream document');
  t.equal(
    (await get(`${s.repo}/${CORE}/maven-metadata.xml.sha1`)).body.toString(),
    hash('sha1', newer),
    'and its checksum',
  );

  await get(`${s.repo}/${CORE_POM}`);
  await get(`${s.repo}/${CORE_POM}`);
  t.equal(upstreamGets(s, CORE_POM), 1, 'a POM is fetched once');
});

t.test(
  'SNAPSHOTs: version metadata is mutable, timestamped files are cached, non-unique files pass through',
  async (t) => {
    const s = await setup(t, { config: OPEN });
    const dir = 'org/example/snap/1.0-SNAPSHOT';
    const meta = await get(`${s.repo}/${dir}/maven-metadata.xml`);
    t.equal(meta.status, 200);
    t.match(meta.body.toString(), /<snapshotVersions>/);
    t.equal((await get(`${s.repo}/${dir}/maven-metadata.xml.md5`)).body.toString(), hash('md5', meta.body));

    const stamped = `${dir}/snap-1.0-20240101.120000-1.pom`;
    t.equal((await get(`${s.repo}/${stamped}`)).status, 200);
    t.ok(await cachedRow(s, stamped), 'a timestamped SNAPSHOT file never changes: cached');

    const plain = `${dir}/snap-1.0-SNAPSHOT.pom`;
    const a = await get(`${s.repo}/${plain}`);
    t.equal(a.status, 200);
    t.same(a.body, fixture(plain));
    t.equal(a.headers.get('cache-control'), 'no-cache');
    await get(`${s.repo}/${plain}`);
    t.equal(upstreamGets(s, plain), 2, 'a non-unique SNAPSHOT file is asked for every time');
    t.notOk(await cachedRow(s, plain));
    t.equal((await get(`${s.repo}/${dir}/snap-1.0-SNAPSHOT.jar`)).status, 404);
  },
);

t.test('hostile group paths: 400, no upstream request, nothing read outside the store', async (t) => {
  const s = await setup(t, { config: OPEN });
  const hostile = [
    'maven2/%2e%2e/%2e%2e/etc/passwd',
    'maven2/..%2f..%2f..%2fetc/passwd/1.0/passwd-1.0.pom',
    'maven2/org%2fhamcrest/hamcrest-core/1.3/hamcrest-core-1.3.pom',
    'maven2/org%2Fhamcrest/hamcrest-core/maven-metadata.xml',
    'maven2/org%5chamcrest/hamcrest-core/1.3/hamcrest-core-1.3.pom',
    'maven2/org\\..\\..\\etc/hamcrest-core/1.3/hamcrest-core-1.3.pom',
    'maven2/org.hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.pom',
    'maven2/org/%2ehamcrest/hamcrest-core/maven-metadata.xml',
    'maven2/org/hamcrest/%2e%2e/hamcrest-core/maven-metadata.xml',
    'maven2/org/hamcrest/hamcrest-core/%2e%2e%2f%2e%2e%2fetc/maven-metadata.xml',
    'maven2/org/hamcrest/hamcrest-core/1.3/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
    'maven2/org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.pom%00.jar',
    'maven2/org/%252e%252e/hamcrest-core/maven-metadata.xml',
    'maven2/org/ham%20crest/x/1.0/x-1.0.pom',
    'maven2/org/hamcrest/hamcrest-core:evil/1.3/hamcrest-core:evil-1.3.pom',
    'maven2/org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.pom%zz',
  ];
  for (const p of hostile) {
    const res = await get(`${s.url}/proxy/maven/${p}`);
    t.equal(res.status, 400, p);
    t.equal(res.json().error.code, 'bad_request', `${p} code`);
    t.ok(res.json().error.request_id);
  }
  t.equal(s.upstream.count(), 0, 'not one request reached the upstream');
  t.equal((await s.hub.db('artifacts').count({ n: '*' }))[0]?.n, 0, 'nothing was cached');
});
