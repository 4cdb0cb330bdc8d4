import t from 'tap';
import { isHubError } from '@hub/runtime';
import maven from '../src/index.js';
import { parseRequest } from '../src/layout.js';
import { compareMavenVersions } from '../src/version-order.js';

const seg = (p: string) => p.split('/');
const failure = (p: string): string => {
  try {
    parseRequest(seg(p));
    return 'parsed';
  } catch (e) {
    return isHubError(e) ? e.code : 'threw';
  }
};

t.test('artifact files: coordinate, role and extension', async (t) => {
  t.same(parseRequest(seg('maven2/org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.jar')), {
    type: 'file',
    path: 'org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.jar',
    coordinate: { name: 'org.hamcrest:hamcrest-core', version: '1.3' },
    role: 'primary',
    checksum: undefined,
    ext: 'jar',
    mutable: false,
  });
  const r = (p: string) => parseRequest(seg(p)) as Record<string, unknown>;
  t.match(r('maven2/junit/junit/4.13.2/junit-4.13.2.pom.sha1'), {
    role: 'checksum',
    checksum: 'sha1',
    ext: 'pom',
    coordinate: { name: 'junit:junit' },
  });
  t.match(r('maven2/a/b/c/1.0/c-1.0-sources.jar.sha512'), {
    role: 'checksum',
    checksum: 'sha512',
    ext: 'jar',
    coordinate: { name: 'a.b:c', version: '1.0' },
  });
  t.match(r('maven2/a/b/c/1.0/c-1.0.jar.asc'), { role: 'signature', ext: 'jar' });
  t.match(r('maven2/a/b/c/1.0/c-1.0.jar.asc.md5'), { role: 'checksum', checksum: 'md5', ext: 'jar' });
  t.match(r('maven2/a/b/c/1.0/c-1.0.tar.gz'), { role: 'primary', ext: 'gz' });
  t.match(r('maven2/a/c/1.0-SNAPSHOT/c-1.0-20240101.120000-3.jar'), {
    mutable: false,
    coordinate: { version: '1.0-SNAPSHOT' },
  });
  t.match(r('maven2/a/c/1.0-SNAPSHOT/c-1.0-SNAPSHOT.jar'), { mutable: true });
  t.match(r('maven2/a/c/1.0-SNAPSHOT/c-1.0-SNAPSHOT-tests.jar.sha1'), { mutable: true, role: 'checksum' });
});

t.test('maven-metadata.xml at artifact level and SNAPSHOT level', async (t) => {
  t.same(parseRequest(seg('maven2/org/hamcrest/hamcrest-core/maven-metadata.xml')), {
    type: 'metadata',
    path: 'org/hamcrest/hamcrest-core/maven-metadata.xml',
    coordinate: { name: 'org.hamcrest:hamcrest-core' },
    checksum: undefined,
    signature: false,
  });
  t.match(parseRequest(seg('maven2/org/hamcrest/hamcrest-core/maven-metadata.xml.sha256')), { checksum: 'sha256' });
  t.match(parseRequest(seg('maven2/org/hamcrest/hamcrest-core/maven-metadata.xml.asc')), { signature: true });
  t.match(parseRequest(seg('maven2/org/example/snap/1.0-SNAPSHOT/maven-metadata.xml')), {
    path: 'org/example/snap/1.0-SNAPSHOT/maven-metadata.xml',
    coordinate: { name: 'org.example:snap', version: '1.0-SNAPSHOT' },
  });
  t.match(
    parseRequest(seg('maven2/org/apache/maven/plugins/maven-metadata.xml')),
    { coordinate: { name: 'org.apache.maven:plugins' } },
    'group-level metadata is served the same way',
  );
});

t.test('not a maven2 path: no match (404)', async (t) => {
  t.equal(parseRequest(seg('maven/org/a/1.0/a-1.0.jar')), null);
  t.equal(parseRequest(seg('maven2/a/maven-metadata.xml')), null, 'needs a group and an artifact');
  t.equal(parseRequest(seg('maven2/a/b/1.0')), null);
  t.equal(parseRequest(seg('maven2/org/hamcrest/')), null, 'a folder');
});

t.test('malformed names are 400, files of another coordinate 404', async (t) => {
  const cases: Array<[string, string]> = [
    ['maven2/org.hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.jar', 'bad_request'], // dots belong between segments
    ['maven2/org/ham:crest/x/1.0/x-1.0.jar', 'bad_request'],
    ['maven2/org/ham crest/x/1.0/x-1.0.jar', 'bad_request'],
    ['maven2/org/hamcrest/hamcrest-core/1..3/hamcrest-core-1..3.jar', 'bad_request'],
    ['maven2/org/hamcrest/.hidden/1.3/x.jar', 'bad_request'],
    ['maven2/org/hamcrest/hamcrest-core/1.3/..passwd', 'bad_request'],
    ['maven2/org/hamcrest/hamcrest-core/1.3/other-1.3.jar', 'not_found'],
    ['maven2/org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.2.jar', 'not_found'],
    ['maven2/org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.3', 'not_found'],
    ['maven2/a/c/1.0-SNAPSHOT/c-1.0-2024.jar', 'not_found'],
    [`maven2/${Array(25).fill('g').join('/')}/a/1.0/a-1.0.jar`, 'bad_request'],
  ];
  for (const [p, code] of cases) t.equal(failure(p), code, p);
  // `%2f` reaches the kind as a slash inside one segment: refused wherever it is.
  const withSlash = (i: number) => {
    const s = seg('maven2/org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.jar');
    s[i] = `${s[i]}/x`;
    try {
      parseRequest(s);
      return 'parsed';
    } catch (e) {
      return isHubError(e) ? e.code : 'threw';
    }
  };
  for (const i of [1, 2, 3, 4, 5]) t.equal(withSlash(i), 'bad_request', `a slash inside segment ${i}`);
});

t.test('coordinate codec: group:artifact[:version] round-trips', async (t) => {
  const { parse, format } = maven.coordinate;
  t.same(parse('org.hamcrest:hamcrest-core'), { name: 'org.hamcrest:hamcrest-core' });
  t.same(parse('org.hamcrest:hamcrest-core:1.3'), { name: 'org.hamcrest:hamcrest-core', version: '1.3' });
  for (const text of ['org.hamcrest:hamcrest-core', 'junit:junit:4.13.2', 'a.b:c:1.0-SNAPSHOT'])
    t.equal(format(parse(text)!), text);
  for (const bad of ['hamcrest', 'org..x:y', 'org/x:y', 'a:b:c:d', ':b', 'a:', 'a:b:..', 'a:b:'])
    t.equal(parse(bad), null, bad);
});

t.test("Maven's version order", async (t) => {
  const sorted = [
    '1.0-alpha-1',
    '1.0-beta',
    '1.0-rc1',
    '1.0-SNAPSHOT',
    '1.0',
    '1.0-sp1',
    '1.0.1',
    '1.1',
    '1.3.RC2',
    '1.3',
    '2',
    '10.0',
  ];
  const shuffled = [...sorted].reverse();
  t.same(shuffled.sort(compareMavenVersions), sorted);
  t.equal(compareMavenVersions('1.0', '1.0.0'), 0);
  t.equal(compareMavenVersions('1.0-final', '1'), 0);
});
