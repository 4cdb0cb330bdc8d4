import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { CORE, CORE_JAR, CORE_POM, get, OPEN, setup, UPSTREAM } from './setup.js';

const DAY = 86400;

/**
 * A copy of the fixture repository whose file times tell the story (the fixture server sends each file's
 * mtime as Last-Modified): hamcrest-core 1.2's POM is ten days old, 1.3's a minute old, and 1.1 and
 * 1.3.RC2 (listed in maven-metadata.xml) have no POM at all, so no date.
 */
function datedRepo(t: Test): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-maven-cooldown-'));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  fs.cpSync(UPSTREAM, root, { recursive: true });
  const now = Date.now() / 1000;
  fs.mkdirSync(path.join(root, CORE, '1.2'));
  const pom12 = path.join(root, CORE, '1.2', 'hamcrest-core-1.2.pom');
  fs.writeFileSync(
    pom12,
    fs.readFileSync(path.join(root, CORE_POM), 'utf8').replaceAll('<version>1.3</version>', '<version>1.2</version>'),
  );
  fs.utimesSync(pom12, now - 10 * DAY, now - 10 * DAY);
  for (const f of [CORE_POM, CORE_JAR]) fs.utimesSync(path.join(root, f), now - 60, now - 60);
  return root;
}

const versionsOf = (xml: string) => [...xml.matchAll(/<version>([^<]+)<\/version>/g)].map((m) => m[1]);

t.test(
  'min_release_age_secs: too-new and undated versions leave maven-metadata.xml, and their files are refused',
  async (t) => {
    const s = await setup(t, {
      config: OPEN,
      root: datedRepo(t),
      registry: { security: { min_release_age_secs: DAY } },
    });
    const meta = await get(`${s.repo}/${CORE}/maven-metadata.xml`);
    t.equal(meta.status, 200);
    const xml = meta.body.toString('utf8');
    t.same(versionsOf(xml), ['1.2'], 'only the version whose POM is old enough');
    t.match(xml, /<latest>1\.2<\/latest>/, '<latest> moves back');
    t.match(xml, /<release>1\.2<\/release>/, '<release> too');

    for (const f of [CORE_JAR, CORE_POM, `${CORE_JAR}.sha1`]) {
      const refused = await get(`${s.repo}/${f}`);
      t.equal(refused.status, 403, f);
      t.match(refused.json(), {
        error: {
          code: 'package_blocked',
          message:
            /^org\.hamcrest:hamcrest-core 1\.3 was published 20\d\d-.*within the registry's min_release_age_secs \(86400\); it is served from 20\d\d-/,
        },
      });
    }
    t.equal(
      s.upstream.count((r) => r.method === 'GET' && r.url.includes('/1.3/')),
      0,
      'the too-new files were never fetched',
    );
    t.equal((await get(`${s.repo}/${CORE}/1.2/hamcrest-core-1.2.pom`)).status, 200, 'the old version is served');

    const snap = await get(`${s.repo}/org/example/snap/1.0-SNAPSHOT/snap-1.0-20240101.120000-1.pom`);
    t.equal(snap.status, 403, 'a SNAPSHOT is never dated, so never served under a cool-down');
    t.match(snap.json().error.message, /a SNAPSHOT is never dated.*min_release_age_secs \(86400\)/);
    t.equal(
      (await get(`${s.repo}/org/example/snap/1.0-SNAPSHOT/snap-1.0-SNAPSHOT.pom`)).status,
      403,
      'nor its non-unique files',
    );
  },
);

t.test('without a cool-down every version is listed and served', async (t) => {
  const s = await setup(t, { config: OPEN, root: datedRepo(t), registry: { security: {} } });
  t.same(versionsOf((await get(`${s.repo}/${CORE}/maven-metadata.xml`)).body.toString('utf8')), [
    '1.1',
    '1.2',
    '1.3.RC2',
    '1.3',
  ]);
  t.equal((await get(`${s.repo}/${CORE_JAR}`)).status, 200);
  t.equal(
    s.upstream.count((r) => r.method === 'HEAD'),
    0,
    'no POM was dated',
  );
});
