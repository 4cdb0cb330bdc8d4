import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { defineKind, reply } from '@hub/runtime';
import {
  rawRequest,
  startFixtureUpstream,
  startTestHub,
  type FixtureUpstream,
  type TestHub,
  type TestHubOptions,
} from '@hub/testkit';
import maven from '../src/index.js';

/**
 * The fixture repository: org.hamcrest:hamcrest-core 1.3 (the real jar and POM, with .sha1 files made by
 * sha1sum, and a maven-metadata.xml listing 1.1, 1.2, 1.3.RC2, 1.3), org.hamcrest:hamcrest-parent 1.3
 * (a real POM with no .sha1), junit:junit 4.13.2 (the real POM; repository and forge URLs pointed at 127.0.0.1),
 * org.example:tiny 1.0 (a hand-made POM under 512 bytes) and org.example:snap 1.0-SNAPSHOT.
 */
export const FIXTURES = fileURLToPath(new URL('../../test/fixtures/', import.meta.url));
export const UPSTREAM = `${FIXTURES}upstream/`;

export const CORE = 'org/hamcrest/hamcrest-core';
export const CORE_JAR = `${CORE}/1.3/hamcrest-core-1.3.jar`;
export const CORE_POM = `${CORE}/1.3/hamcrest-core-1.3.pom`;

/** Another kind, so a registry of the wrong type can be asked for a maven path. */
export const otherKind = defineKind({
  id: 'other',
  contract: 1,
  addressing: 'package',
  description: 'a kind with one route, for wrong-kind tests',
  coordinate: { parse: (t) => ({ name: t }), format: (c) => c.name },
  routes: [
    {
      id: 'ping',
      match: (s) => (s.length === 1 && s[0] === 'ping' ? {} : null),
      permission: null,
      handle: async () => reply.json({ ok: true }),
    },
  ],
});

export interface MavenSetup extends TestHub {
  upstream: FixtureUpstream;
  /** `${url}/proxy/maven/maven2` */
  repo: string;
}

/** A fixture Maven upstream and a hub with a maven registry `maven` (and an `other` registry) in front of it. */
export async function setup(
  t: Test,
  opts: Partial<Pick<TestHubOptions, 'config'>> & { registry?: Record<string, unknown>; root?: string } = {},
): Promise<MavenSetup> {
  const upstream = await startFixtureUpstream({ root: opts.root ?? UPSTREAM });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [maven, otherKind],
    registries: [
      { name: 'maven', type: 'maven', mode: 'proxy', upstream: upstream.url, ...opts.registry },
      { name: 'other', type: 'other', mode: 'proxy', upstream: upstream.url },
    ],
    config: opts.config,
  });
  t.teardown(() => hub.close());
  return { ...hub, upstream, repo: `${hub.url}/proxy/maven/maven2` };
}

/** Anonymous reads on: most tests are about the protocol, not about tokens. */
export const OPEN = { auth: { anonymous: ['source:read'] } };

/** GET (or another method) with the path sent exactly as written. */
export const get = (url: string, headers: Record<string, string> = {}, method = 'GET') =>
  rawRequest(url, { headers, method });
