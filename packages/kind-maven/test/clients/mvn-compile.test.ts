import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { hubRequests, mvn, mvnMissing, project, total, type Auth } from '../mvn.js';
import { setup } from '../setup.js';

/**
 * The real mvn (Debian's 3.8.7) compiles a small project through hub. The upstream is the machine's
 * pre-seeded ~/.m2/repository, served read-only by the fixture upstream: the dependency and every
 * plugin mvn needs come through hub. mvn gets its own settings, user.home and local repository.
 */
const M2 = path.join(os.homedir(), '.m2', 'repository');

/** What the project needs from ~/.m2 (besides their transitive trees, which mvn reports if missing). */
const NEEDS = [
  'commons-cli/commons-cli/1.9.0/commons-cli-1.9.0.jar',
  'commons-cli/commons-cli/1.9.0/commons-cli-1.9.0.pom',
  'org/apache/maven/plugins/maven-compiler-plugin/3.13.0/maven-compiler-plugin-3.13.0.jar',
  'org/apache/maven/plugins/maven-resources-plugin/3.3.1/maven-resources-plugin-3.3.1.jar',
];

const POM = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example.hubtest</groupId>
  <artifactId>app</artifactId>
  <version>1.0</version>
  <packaging>jar</packaging>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>17</maven.compiler.release>
  </properties>
  <dependencies>
    <dependency>
      <groupId>commons-cli</groupId>
      <artifactId>commons-cli</artifactId>
      <version>1.9.0</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <!-- Maven 3.8.7's default lifecycle versions have incomplete trees in ~/.m2 (packages/kind-maven/README.md). -->
      <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
      <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin>
    </plugins>
  </build>
</project>
`;

const APP = `package org.example.hubtest;

import org.apache.commons.cli.Options;

public class App {
  public static void main(String[] args) {
    System.out.println(new Options().addOption("v", "verbose").getOptions().size());
  }
}
`;

function skipReason(): string | null {
  if (mvnMissing) return mvnMissing;
  const missing = NEEDS.filter((p) => !fs.existsSync(path.join(M2, p)));
  return missing.length ? `${M2} lacks ${missing.join(', ')}` : null;
}

const reason = skipReason();
if (reason) t.comment(`skipping the mvn tests: ${reason}`);

const runs: Array<[string, (token: string) => Auth, boolean]> = [
  [
    "(a) <server> username/password: Basic after hub's 401 challenge",
    (token) => ({ kind: 'basic', user: 'builder', token }),
    true,
  ],
  ['(b) <httpHeaders> Authorization: Bearer, sent up front', (token) => ({ kind: 'header', token }), false],
];

for (const [name, auth, challenged] of runs) {
  t.test(
    `mvn compile through hub, anonymous reads off: ${name}`,
    { skip: reason ?? false, timeout: 120_000 },
    async (t) => {
      const s = await setup(t, { root: M2 });
      const token = await s.token('builder', { roles: ['reader'] });
      const p = project(t, s.repo, auth(token), { 'pom.xml': POM, 'src/main/java/org/example/hubtest/App.java': APP }, [
        'compile',
      ]);
      const out = await mvn(t, p);
      if (!out) return;
      t.match(out.stdout, /BUILD SUCCESS/);
      t.ok(
        fs.existsSync(path.join(p.dir, 'app/target/classes/org/example/hubtest/App.class')),
        'App.class was compiled against commons-cli from hub',
      );
      t.ok(
        fs.existsSync(p.repo('commons-cli/commons-cli/1.9.0/commons-cli-1.9.0.jar')),
        'the dependency came through hub',
      );
      t.ok(fs.existsSync(p.repo('org/apache/maven/plugins/maven-compiler-plugin/3.13.0')), 'the plugins too');

      const byStatus = await hubRequests(s);
      t.comment(
        `hub answered ${total(byStatus)} requests: ${JSON.stringify(byStatus)}; the upstream saw ${s.upstream.count()}`,
      );
      t.ok((byStatus['200'] ?? 0) > 50, 'many artifacts went through hub');
      if (challenged) t.ok((byStatus['401'] ?? 0) > 0, 'mvn was challenged and then sent Basic');
      else t.notOk(byStatus['401'], 'no challenge needed: the header went up front');
      t.notOk(byStatus['500'] ?? byStatus['502'], 'no server errors');
      t.equal(
        s.upstream.count((r) => Boolean(r.headers.authorization)),
        0,
        "the client's token never reaches the upstream",
      );
      const jars = s.upstream.requests.filter((r) => r.url.endsWith('.jar'));
      t.equal(new Set(jars.map((r) => r.url)).size, jars.length, 'each jar left the upstream once');
    },
  );
}
