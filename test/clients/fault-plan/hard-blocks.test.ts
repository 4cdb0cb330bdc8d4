/**
 * Fail-closed hard blocks (#16): two hub replicas on one private MariaDB. A hard_block pushed to one
 * replica refuses there at once and on the other within 5 s (the change counter it polls); with the
 * database really stopped (kill -9 mariadbd), both keep refusing the hard-blocked versions and keep serving
 * the unflagged cached ones, and a lift after the database is back applies on both.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import admin from '@hub/admin';
import flags from '@hub/flags';
import npm from '@hub/kind-npm';
import { createDb } from '@hub/runtime/internal';
import { npmFixtureHandler, signFlagRequest, startFixtureUpstream, startTestHub, missingClient } from '@hub/testkit';
import { sleep, startMariadb, TOOLS, waitFor } from './infra.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../../packages/kind-npm/test/fixtures/upstream/', import.meta.url));
const SECRET = 'advisory-feed-secret';
const missing = [TOOLS.mariadbd].filter((bin) => !fs.existsSync(bin));
const skip = missing.length
  ? missingClient(missing.join(', '), 'for a database that can really be stopped; .ci/run installs it')
  : false;

t.test(
  'hard_block flags are held in memory: pushed to one replica, refused on both, and still refused while the database is down',
  { skip },
  async (t) => {
    const top = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-hard-blocks-'));
    const stops: Array<() => Promise<unknown>> = [];
    t.teardown(async () => {
      for (const stop of stops.reverse()) await stop().catch(() => {});
      fs.rmSync(top, { recursive: true, force: true });
    });
    const mariadb = await startMariadb(path.join(top, 'mariadb'));
    stops.push(mariadb.stop);
    const root = createDb({ client: 'mysql', url: mariadb.url('') });
    await root.raw('CREATE DATABASE hub CHARACTER SET utf8mb4 COLLATE utf8mb4_bin').finally(() => root.destroy());
    const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
    stops.push(() => upstream.close());

    // One after the other: the first migrates the empty database.
    const replicas = [];
    for (const name of ['a', 'b']) {
      const hub = await startTestHub({
        dir: path.join(top, name),
        mysqlUrl: mariadb.url('hub'),
        plugins: [npm, admin, flags],
        registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
        config: {
          flag_sources: [{ name: 'feed', secret: SECRET }] as never,
          auth: { anonymous: ['source:read'] },
          cache: { memory_bytes: 67108864, memory_max_object_bytes: 1048576 },
        },
      });
      stops.push(() => hub.close());
      replicas.push(hub);
    }
    const [a, b] = replicas as [(typeof replicas)[0], (typeof replicas)[0]];
    const status = async (hub: typeof a, name: string, version: string) => {
      const res = await fetch(`${hub.url}/proxy/npm/${name}/${version}/tarball`);
      const body = await res.text();
      return { status: res.status, body };
    };
    const push = async (hub: typeof a, method: 'POST' | 'DELETE', p: string, body?: string) => {
      const res = await fetch(`${hub.url}${p}`, {
        method,
        headers: {
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...signFlagRequest({ secret: SECRET, method, path: p, body }),
        },
        body,
      });
      return { status: res.status, json: (await res.json()) as any };
    };

    // Every replica holds the files it will serve during the outage.
    for (const hub of replicas)
      for (const [n, v] of [
        ['hubdemo', '1.0.0'],
        ['hubdemo', '1.1.0'],
        ['hubdep', '1.0.0'],
        ['@hubtest/scoped', '1.0.0'],
      ] as const)
        t.equal((await status(hub, n, v)).status, 200, `${hub.url}: ${n} ${v} served before any flag`);

    const raised = await push(
      a,
      'POST',
      '/api/v1/flags/feed',
      JSON.stringify({
        flags: [
          {
            external_id: 'MAL-range',
            registry: 'npm',
            package_name: 'hubdemo',
            version_range: '>=1.0.0 <1.1.0',
            kind: 'malware',
            effect: 'hard_block',
            summary: 'range',
          },
          {
            external_id: 'MAL-exact',
            registry: 'npm',
            package_name: 'hubdep',
            version: '1.0.0',
            kind: 'malware',
            effect: 'hard_block',
          },
          // Not asked for again before the database stops: only the set held in memory can refuse it then.
          {
            external_id: 'MAL-unasked',
            registry: 'npm',
            package_name: '@hubtest/scoped',
            version: '1.0.0',
            kind: 'malware',
            effect: 'hard_block',
          },
        ],
      }),
    );
    t.match(raised, { status: 200, json: { accepted: 3, rejected: 0 } });
    t.equal((await status(a, 'hubdemo', '1.0.0')).status, 403, 'the receiving replica refuses at once (no wait)');
    t.equal((await status(a, 'hubdep', '1.0.0')).status, 403);
    await waitFor(
      'the other replica refuses both',
      async () =>
        (await status(b, 'hubdemo', '1.0.0')).status === 403 && (await status(b, 'hubdep', '1.0.0')).status === 403,
      5_000,
      100,
    );

    await mariadb.stop();
    // Past every one-second memo: what answers now does not come from a recent database read.
    await sleep(1_500);
    for (const hub of replicas) {
      for (let i = 0; i < 3; i++) {
        const refused = await status(hub, 'hubdemo', '1.0.0');
        t.equal(refused.status, 403, `${hub.url}: the hard-blocked version is refused with the database down`);
        t.match(JSON.parse(refused.body), {
          error: {
            code: 'package_blocked',
            message:
              'hubdemo 1.0.0 (in >=1.0.0 <1.1.0) is flagged malware (hard_block) by flag source feed, MAL-range: range',
          },
        });
        t.equal((await status(hub, 'hubdep', '1.0.0')).status, 403, `${hub.url}: and the exact one`);
        t.equal(
          (await status(hub, '@hubtest/scoped', '1.0.0')).status,
          403,
          `${hub.url}: and one this replica was not asked for since the flag (no memo of it)`,
        );
        t.equal(
          (await status(hub, 'hubdemo', '1.1.0')).status,
          200,
          `${hub.url}: an unflagged cached version is served`,
        );
      }
    }

    await mariadb.start();
    // After the database is back, a lift on b reaches a (the counter moved); b applies it at once.
    const lifted = await waitFor(
      'the lift is accepted once the database is back',
      async () => {
        const r = await push(b, 'DELETE', '/api/v1/flags/feed/MAL-exact');
        return r.status === 200 ? r : null;
      },
      30_000,
      250,
    );
    t.match(lifted.json, { flag: { external_id: 'MAL-exact', state: 'tombstone' } });
    t.equal((await status(b, 'hubdep', '1.0.0')).status, 200, 'lifted on the receiving replica at once');
    await waitFor(
      'the other replica serves the lifted version',
      async () => (await status(a, 'hubdep', '1.0.0')).status === 200,
      5_000,
      100,
    );
    t.equal((await status(a, 'hubdemo', '1.0.0')).status, 403, 'the other flag still holds');
  },
);
