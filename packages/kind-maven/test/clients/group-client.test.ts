import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import publishing from '@hub/publishing';
import { rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import maven from '../../src/index.js';
import { listedVersions } from '../../src/metadata.js';
import { mvn, mvnMissing, project, RANGE_POM } from '../mvn.js';
import { UPSTREAM } from '../setup.js';

/**
 * Issue 28: the real mvn through a group `maven` of a local registry (`maven-internal`), a vendor upstream
 * (`maven-vendor`, second: org.example:hubparent 2.5 only) and the shared fixtures (`maven-public`, third:
 * hubparent 1.0 and 2.0). A parent POM given as a version range makes mvn read the group's merged
 * maven-metadata.xml and, with -C (strict checksums), insist on its .sha1: the checksum of the merged bytes.
 */

/** A repository folder with hubparent 2.5 (its POM, the POM's .sha1, and maven-metadata.xml). */
function vendorFolder(dir: string): string {
  const at = path.join(dir, 'org', 'example', 'hubparent');
  fs.mkdirSync(path.join(at, '2.5'), { recursive: true });
  const pom = fs
    .readFileSync(path.join(UPSTREAM, 'org/example/hubparent/2.0/hubparent-2.0.pom'), 'utf8')
    .replace('<version>2.0</version>', '<version>2.5</version>');
  fs.writeFileSync(path.join(at, '2.5', 'hubparent-2.5.pom'), pom);
  fs.writeFileSync(path.join(at, '2.5', 'hubparent-2.5.pom.sha1'), crypto.createHash('sha1').update(pom).digest('hex'));
  fs.writeFileSync(
    path.join(at, 'maven-metadata.xml'),
    '<?xml version="1.0" encoding="UTF-8"?>\n<metadata>\n  <groupId>org.example</groupId>\n  <artifactId>hubparent</artifactId>\n  <versioning>\n    <latest>2.5</latest>\n    <release>2.5</release>\n    <versions>\n      <version>2.5</version>\n    </versions>\n    <lastUpdated>20240301120000</lastUpdated>\n  </versioning>\n</metadata>\n',
  );
  return dir;
}

t.test(
  'mvn -C resolves a version range through the merged maven-metadata.xml, to a POM from the second member',
  { skip: mvnMissing ?? false, timeout: 120_000 },
  async (t) => {
    const dir = t.testdir();
    const pub = await startFixtureUpstream({ root: UPSTREAM });
    t.teardown(() => pub.close());
    const vendor = await startFixtureUpstream({ root: vendorFolder(path.join(dir, 'vendor')) });
    t.teardown(() => vendor.close());
    const hub = await startTestHub({
      dir: path.join(dir, 'hub'),
      plugins: [maven, publishing],
      registries: [
        { name: 'maven-internal', type: 'maven', mode: 'local' },
        { name: 'maven-vendor', type: 'maven', upstream: vendor.url },
        { name: 'maven-public', type: 'maven', upstream: pub.url },
        { name: 'maven', type: 'maven', mode: 'group', members: ['maven-internal', 'maven-vendor', 'maven-public'] },
      ],
    });
    t.teardown(() => hub.close());
    const token = await hub.token('builder', { roles: ['reader'] });
    const repo = `${hub.url}/proxy/maven/maven2`;

    const auth = { authorization: `Bearer ${token}` };
    const meta = await rawRequest(`${repo}/org/example/hubparent/maven-metadata.xml`, { headers: auth });
    t.same(listedVersions(meta.body.toString()), ['1.0', '2.0', '2.5'], 'the merged listing');
    const sha1 = await rawRequest(`${repo}/org/example/hubparent/maven-metadata.xml.sha1`, { headers: auth });
    t.equal(
      sha1.body.toString(),
      crypto.createHash('sha1').update(meta.body).digest('hex'),
      'its .sha1 is of the merged bytes',
    );

    const p = project(t, repo, { kind: 'header', token }, { 'pom.xml': RANGE_POM }, ['-C', 'validate']);
    const out = await mvn(t, p);
    if (!out) return;
    t.ok(
      fs.existsSync(p.repo('org/example/hubparent/2.5/hubparent-2.5.pom')),
      'the highest version in range, 2.5, from the second member',
    );
    t.notMatch(out.stdout, /[Cc]hecksum/, 'strict checksums (-C) accepted the merged metadata and the POM');
    t.equal(
      vendor.count((r) => r.url === '/org/example/hubparent/2.5/hubparent-2.5.pom'),
      1,
      'the POM left the vendor upstream once',
    );
    t.equal(
      pub.count((r) => r.url.includes('/2.5/')),
      0,
      'the third member was never asked for 2.5: the second had it',
    );
  },
);
