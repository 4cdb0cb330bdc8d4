import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Test } from 'tap';
import type { MavenSetup } from './setup.js';
import { missingClient } from '@hub/testkit';

/** Helpers for the tests that run the real mvn: a throwaway project, settings and local repository per run. */
const run = promisify(execFile);

export type Auth = { kind: 'basic'; user: string; token: string } | { kind: 'header'; token: string };

export function settingsXml(mirror: string, auth: Auth): string {
  const server =
    auth.kind === 'basic'
      ? `<username>${auth.user}</username><password>${auth.token}</password>`
      : `<configuration><httpHeaders><property><name>Authorization</name><value>Bearer ${auth.token}</value></property></httpHeaders></configuration>`;
  return `<settings>
  <mirrors><mirror><id>hub</id><mirrorOf>*</mirrorOf><url>${mirror}</url></mirror></mirrors>
  <servers><server><id>hub</id>${server}</server></servers>
</settings>
`;
}

/** A throwaway project (its pom.xml and sources), settings, user.home and local repository. */
export function project(t: Test, mirror: string, auth: Auth, files: Record<string, string>, goals: string[]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-mvn-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, 'app', name)), { recursive: true });
    fs.writeFileSync(path.join(dir, 'app', name), text);
  }
  const settings = path.join(dir, 'settings.xml');
  fs.writeFileSync(settings, settingsXml(mirror, auth));
  fs.mkdirSync(path.join(dir, 'home'));
  const args = [
    '-B',
    '-ntp',
    '-s',
    settings,
    '-gs',
    settings,
    `-Dmaven.repo.local=${path.join(dir, 'repo')}`,
    '-f',
    path.join(dir, 'app', 'pom.xml'),
    ...goals,
  ];
  const env = {
    PATH: process.env.PATH,
    HOME: path.join(dir, 'home'),
    JAVA_HOME: process.env.JAVA_HOME ?? '',
    MAVEN_OPTS: `-Duser.home=${path.join(dir, 'home')}`,
  };
  return {
    dir,
    repo: (p: string) => path.join(dir, 'repo', p),
    run: () => run('mvn', args, { env, timeout: 110_000, maxBuffer: 32 * 1024 * 1024 }),
  };
}

/** Runs mvn; on failure, fails the test with mvn's ERROR lines and returns null. */
export async function mvn(t: Test, p: ReturnType<typeof project>) {
  return p.run().catch((e: { stdout?: string; stderr?: string; message: string }) => {
    t.fail(
      `mvn failed: ${e.message}\n${(e.stdout ?? '')
        .split('\n')
        .filter((l) => /ERROR|WARN/.test(l))
        .slice(0, 30)
        .join('\n')}`,
    );
    return null;
  });
}

/** Requests hub answered for registry `maven`, by status, from its own metrics. */
export async function hubRequests(s: MavenSetup): Promise<Record<string, number>> {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^hub_http_request_duration_seconds_count\{([^}]*)\} (\d+)/gm)) {
    if (!/registry="maven"/.test(m[1]!)) continue;
    const status = /status="(\d+)"/.exec(m[1]!)?.[1] ?? '?';
    out[status] = (out[status] ?? 0) + Number(m[2]);
  }
  return out;
}

export const total = (byStatus: Record<string, number>) => Object.values(byStatus).reduce((a, b) => a + b, 0);

/** Why the mvn tests cannot run here, or null. */
export const mvnMissing = (() => {
  try {
    execFileSync('mvn', ['-v'], { stdio: 'ignore', timeout: 60_000 });
    return null;
  } catch {
    return missingClient('mvn', 'apt-get install maven');
  }
})();

/** A child POM whose parent, org.example:hubparent, is a version range: mvn reads maven-metadata.xml to resolve it. */
export const RANGE_POM = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>org.example</groupId>
    <artifactId>hubparent</artifactId>
    <version>[1.0,3.0)</version>
    <relativePath/>
  </parent>
  <artifactId>child</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
</project>
`;
