import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { startFixtureUpstream, startTestHub, serveStatic, type FixtureUpstream } from '@hub/testkit';
import maven from '../../src/index.js';
import { mvnMissing } from '../mvn.js';
import publishing from '@hub/publishing';

/**
 * Issue 13 with the real mvn (Debian's 3.8.7): `mvn deploy` of a small jar project to a local registry, and a
 * second project that depends on it compiles through hub; the same through a hybrid registry whose upstream
 * also has the name (the dependency-confusion case: the upstream is never asked about it). Plugins come from
 * the machine's pre-seeded ~/.m2/repository, served read-only by the fixture upstream.
 */
const run = promisify(execFile);
const M2 = path.join(os.homedir(), '.m2', 'repository');
const PLUGINS: Array<[string, string]> = [
  ['maven-resources-plugin', '3.3.1'],
  ['maven-compiler-plugin', '3.13.0'],
  ['maven-surefire-plugin', '3.2.5'],
  ['maven-jar-plugin', '3.4.1'],
  ['maven-install-plugin', '3.1.1'],
  ['maven-deploy-plugin', '3.1.1'],
];
const GROUP = 'org.example.hubpub';
const LIB_DIR = 'org/example/hubpub/lib';

function skipReason(): string | null {
  if (mvnMissing) return mvnMissing;
  const missing = PLUGINS.map(([a, v]) => `org/apache/maven/plugins/${a}/${v}/${a}-${v}.jar`).filter(
    (p) => !fs.existsSync(path.join(M2, p)),
  );
  return missing.length ? `${M2} lacks ${missing.join(', ')}` : null;
}
const reason = skipReason();
if (reason) t.comment(`skipping the mvn publish tests: ${reason}`);

const plugins = PLUGINS.map(([a, v]) => `<plugin><artifactId>${a}</artifactId><version>${v}</version></plugin>`).join(
  '\n      ',
);

/** The library: `version` of org.example.hubpub:lib, deployed to `deployUrl`. */
const libPom = (version: string, deployUrl: string) => `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>${GROUP}</groupId>
  <artifactId>lib</artifactId>
  <version>${version}</version>
  <packaging>jar</packaging>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>17</maven.compiler.release>
  </properties>
  <distributionManagement>
    <repository><id>internal</id><url>${deployUrl}</url></repository>
  </distributionManagement>
  <build>
    <plugins>
      ${plugins}
    </plugins>
  </build>
</project>
`;
const LIB_JAVA = `package org.example.hubpub;

public class Greeting {
  public static String hello() { return "hello from the internal lib"; }
}
`;

/**
 * The consumer: depends on lib `range`, reads it from `repoUrl` (declared as repository `internal`), with the
 * strict checksum policy: a missing or wrong checksum from hub fails the build.
 */
const appPom = (range: string, repoUrl: string) => `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example.hubapp</groupId>
  <artifactId>app</artifactId>
  <version>1.0</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>17</maven.compiler.release>
  </properties>
  <repositories>
    <repository>
      <id>internal</id><url>${repoUrl}</url>
      <releases><checksumPolicy>fail</checksumPolicy></releases>
    </repository>
  </repositories>
  <dependencies>
    <dependency><groupId>${GROUP}</groupId><artifactId>lib</artifactId><version>${range}</version></dependency>
  </dependencies>
  <build>
    <plugins>
      ${plugins}
    </plugins>
  </build>
</project>
`;
const APP_JAVA = `package org.example.hubapp;

public class App {
  public static void main(String[] args) { System.out.println(org.example.hubpub.Greeting.hello()); }
}
`;

/**
 * settings.xml: `mirrorUrl` mirrors every repository but `internal`; `<server>`s give mvn the token as the
 * Basic password (any username), which it sends after hub's 401 challenge.
 */
const settings = (mirrorUrl: string, token: string) => `<settings>
  <mirrors><mirror><id>hub</id><mirrorOf>*,!internal</mirrorOf><url>${mirrorUrl}</url></mirror></mirrors>
  <servers>
    <server><id>hub</id><username>ci</username><password>${token}</password></server>
    <server><id>internal</id><username>ci</username><password>${token}</password></server>
  </servers>
</settings>
`;

/** A throwaway project with its own settings, user.home and local repository. */
function project(t: Test, files: Record<string, string>, settingsXml: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-mvn-pub-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, 'p', name)), { recursive: true });
    fs.writeFileSync(path.join(dir, 'p', name), text);
  }
  fs.writeFileSync(path.join(dir, 'settings.xml'), settingsXml);
  fs.mkdirSync(path.join(dir, 'home'));
  const env = {
    PATH: process.env.PATH,
    HOME: path.join(dir, 'home'),
    JAVA_HOME: process.env.JAVA_HOME ?? '',
    MAVEN_OPTS: `-Duser.home=${path.join(dir, 'home')}`,
  };
  const args = (goals: string[]) => [
    '-B',
    '-ntp',
    '-s',
    path.join(dir, 'settings.xml'),
    '-gs',
    path.join(dir, 'settings.xml'),
    `-Dmaven.repo.local=${path.join(dir, 'repo')}`,
    '-Dmaven.test.skip=true',
    '-f',
    path.join(dir, 'p', 'pom.xml'),
    ...goals,
  ];
  return {
    dir,
    repo: (p: string) => path.join(dir, 'repo', p),
    /** mvn's exit code and output (stdout and stderr). */
    mvn: (goals: string[]) =>
      run('mvn', args(goals), { env, timeout: 170_000, maxBuffer: 32 * 1024 * 1024 }).then(
        (r) => ({ code: 0, out: r.stdout + r.stderr }),
        (e: { code?: number; stdout?: string; stderr?: string }) => ({
          code: e.code ?? 1,
          out: `${e.stdout ?? ''}${e.stderr ?? ''}`,
        }),
      ),
  };
}

/** The assertion message: `what`, or on failure what mvn printed as errors. */
const said = (r: { code: number; out: string }, what: string) =>
  r.code === 0
    ? what
    : `${what}: mvn failed\n${r.out
        .split('\n')
        .filter((l) => l.includes('[ERROR]'))
        .slice(0, 30)
        .join('\n')}`;

/** The public upstream: ~/.m2 for plugins, and a public org.example.hubpub:lib 1.0 and 9.0 (the confusion case). */
async function upstreamWithPublicLib(t: Test): Promise<FixtureUpstream> {
  const pub = t.testdir({});
  const dir = path.join(pub, LIB_DIR);
  for (const v of ['1.0', '9.0']) {
    fs.mkdirSync(path.join(dir, v), { recursive: true });
    fs.writeFileSync(
      path.join(dir, v, `lib-${v}.pom`),
      `<project><modelVersion>4.0.0</modelVersion><groupId>${GROUP}</groupId><artifactId>lib</artifactId><version>${v}</version></project>\n`,
    );
    fs.copyFileSync(
      path.join(M2, 'commons-cli/commons-cli/1.9.0/commons-cli-1.9.0.jar'),
      path.join(dir, v, `lib-${v}.jar`),
    );
  }
  fs.writeFileSync(
    path.join(dir, 'maven-metadata.xml'),
    `<metadata><groupId>${GROUP}</groupId><artifactId>lib</artifactId><versioning><latest>9.0</latest><release>9.0</release><versions><version>1.0</version><version>9.0</version></versions><lastUpdated>20200101000000</lastUpdated></versioning></metadata>\n`,
  );
  const upstream = await startFixtureUpstream({
    root: M2,
    handler: (req, res, up) => (req.url?.startsWith(`/${LIB_DIR}/`) ? serveStatic(pub, req, res, up) : false),
  });
  t.teardown(() => upstream.close());
  return upstream;
}

async function start(t: Test) {
  const upstream = await upstreamWithPublicLib(t);
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [maven, publishing],
    registries: [
      { name: 'central', type: 'maven', mode: 'proxy', upstream: upstream.url },
      { name: 'internal', type: 'maven', mode: 'local' },
      { name: 'mixed', type: 'maven', mode: 'hybrid', upstream: upstream.url },
    ],
  });
  t.teardown(() => hub.close());
  const publisher = await hub.token('ci', { roles: ['publisher'] });
  const reader = await hub.token('dev', { roles: ['reader'] });
  const repo = (name: string) => `${hub.url}/proxy/${name}/maven2`;
  return { hub, upstream, publisher, reader, repo };
}

t.test(
  'mvn deploy to a local registry; a second project resolves the jar through hub; a second deploy is 409',
  { skip: reason ?? false, timeout: 600_000 },
  async (t) => {
    const s = await start(t);
    const lib = project(
      t,
      { 'pom.xml': libPom('1.0', s.repo('internal')), 'src/main/java/org/example/hubpub/Greeting.java': LIB_JAVA },
      settings(s.repo('central'), s.publisher),
    );
    const deployed = await lib.mvn(['deploy']);
    t.equal(deployed.code, 0, said(deployed, 'mvn deploy succeeds'));

    const versions = await s.hub.hub
      .db('local_versions')
      .where({ registry: 'internal' })
      .select('name', 'version', 'publisher');
    t.same(
      versions,
      [{ name: `${GROUP}:lib`, version: '1.0', publisher: 'ci' }],
      'the version was recorded from its POM, with its publisher',
    );
    await s.hub.hub.audit.flush();
    const verified = await s.hub.hub
      .db('access_events')
      .where({ registry: 'internal', action: 'upload', status: 201 })
      .whereLike('detail', '%matches%')
      .select('detail');
    t.same(
      verified.map((r) => r.detail!.replace(/^.*\//, '').replace(/ .*$/, '')).sort(),
      ['lib-1.0.jar.md5', 'lib-1.0.jar.sha1', 'lib-1.0.pom.md5', 'lib-1.0.pom.sha1'],
      "the checksums mvn sent were compared with hub's own",
    );
    const auth = { authorization: `Bearer ${s.reader}` };
    const meta = await fetch(`${s.repo('internal')}/${LIB_DIR}/maven-metadata.xml`, { headers: auth });
    t.equal(meta.status, 200);
    const metaText = await meta.text();
    t.match(metaText, /<release>1\.0<\/release>/);
    t.match(metaText, /<version>1\.0<\/version>/);

    // The consumer reads plugins from central and the library from the local registry.
    const app = project(
      t,
      { 'pom.xml': appPom('1.0', s.repo('internal')), 'src/main/java/org/example/hubapp/App.java': APP_JAVA },
      settings(s.repo('central'), s.reader),
    );
    const compiled = await app.mvn(['compile']);
    t.equal(compiled.code, 0, said(compiled, 'the consumer compiles against the published jar'));
    t.same(
      fs.readFileSync(app.repo(`${LIB_DIR}/1.0/lib-1.0.jar`)),
      fs.readFileSync(path.join(lib.dir, 'p/target/lib-1.0.jar')),
      'the same jar came back',
    );
    t.equal(s.upstream.count(`/${LIB_DIR}/`), 0, 'the public upstream was never asked about the library');

    const again = await lib.mvn(['deploy']);
    t.not(again.code, 0, 'a second deploy of the release fails');
    t.match(again.out, /409/, 'hub answered 409');
    t.same(
      await s.hub.hub
        .db('local_versions')
        .where({ registry: 'internal' })
        .count({ n: '*' })
        .first()
        .then((r) => Number((r as { n: unknown }).n)),
      1,
    );
  },
);

t.test(
  'hybrid: the library deployed here wins over the public one of the same name, and the upstream is never asked about it',
  { skip: reason ?? false, timeout: 600_000 },
  async (t) => {
    const s = await start(t);
    // The upstream has the name: an administrator claims it for the registry first (decision 0043).
    await s.hub.hub.services.local.claim('mixed', `${GROUP}:lib`, 'admin');
    const lib = project(
      t,
      { 'pom.xml': libPom('1.0', s.repo('mixed')), 'src/main/java/org/example/hubpub/Greeting.java': LIB_JAVA },
      settings(s.repo('mixed'), s.publisher),
    );
    const deployed = await lib.mvn(['deploy']);
    t.equal(deployed.code, 0, said(deployed, 'mvn deploy succeeds'));

    // A version range reads maven-metadata.xml: merged with the upstream's it would pick the public 9.0.
    const app = project(
      t,
      { 'pom.xml': appPom('[1.0,)', s.repo('mixed')), 'src/main/java/org/example/hubapp/App.java': APP_JAVA },
      settings(s.repo('mixed'), s.reader),
    );
    // (The strict checksum policy applies to `internal`, the hybrid registry here; plugins from ~/.m2 have no checksums.)
    const compiled = await app.mvn(['compile']);
    t.equal(compiled.code, 0, said(compiled, 'the consumer compiles against the internal jar'));
    t.same(
      fs.readFileSync(app.repo(`${LIB_DIR}/1.0/lib-1.0.jar`)),
      fs.readFileSync(path.join(lib.dir, 'p/target/lib-1.0.jar')),
      'the internal 1.0, not the public file of the same number',
    );
    t.notOk(fs.existsSync(app.repo(`${LIB_DIR}/9.0`)), 'the public 9.0 was never offered');
    t.equal(s.upstream.count(`/${LIB_DIR}/`), 0, 'the upstream was never asked about the library');
    t.ok(s.upstream.count('/org/apache/maven/plugins/') > 0, 'plugins did come from the upstream');
  },
);

t.test(
  'mvn deploy of a version another publisher started deploying fails with 403; its files are never replaced (#26)',
  { skip: reason ?? false, timeout: 600_000 },
  async (t) => {
    const s = await start(t);
    await s.hub.hub.services.users.create({ id: 'rival', roles: ['publisher'] });
    const rival = (await s.hub.hub.services.tokens.issue({ user_id: 'rival' })).token;
    // A well-formed jar, but not the library's.
    const evil = fs.readFileSync(path.join(M2, 'commons-cli/commons-cli/1.9.0/commons-cli-1.9.0.jar'));
    const put = await fetch(`${s.repo('internal')}/${LIB_DIR}/1.0/lib-1.0.jar`, {
      method: 'PUT',
      headers: { authorization: `Basic ${Buffer.from(`x:${rival}`).toString('base64')}` },
      body: evil,
    });
    t.equal(put.status, 201, 'a rival stores a jar of 1.0 first');

    const lib = project(
      t,
      { 'pom.xml': libPom('1.0', s.repo('internal')), 'src/main/java/org/example/hubpub/Greeting.java': LIB_JAVA },
      settings(s.repo('central'), s.publisher),
    );
    const deployed = await lib.mvn(['deploy']);
    t.not(deployed.code, 0, 'mvn deploy fails');
    t.match(deployed.out, /403/, 'hub answered 403: the version is being deployed by another publisher');
    t.same(
      await s.hub.hub.db('local_versions').where({ registry: 'internal' }).select('version'),
      [],
      'no version was recorded',
    );
    const back = await fetch(`${s.repo('internal')}/${LIB_DIR}/1.0/lib-1.0.jar`, {
      headers: { authorization: `Bearer ${s.reader}` },
    });
    t.same(Buffer.from(await back.arrayBuffer()), evil, 'and the stored file was not replaced by anyone');
  },
);
