import { fileURLToPath } from 'node:url';
import t from 'tap';
import admin from '@hub/admin';
import npm from '@hub/kind-npm';
import { npmFixtureHandler, signFlagRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import flags from '../src/index.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));
const SECRET = 'cap-secret';

t.test(
  'the memory held for hard_block flags is capped in bytes: a push over it is refused, a reload over it keeps the set and reads the rest from the database, a start over it is refused',
  async (t) => {
    const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
    t.teardown(() => upstream.close());
    const dir = t.testdir();
    const options = {
      dir,
      plugins: [npm, admin, flags],
      registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
      config: { flag_sources: [{ name: 'feed', secret: SECRET }] as never, limits: { flag_hard_block_bytes: 2048 } },
    } as const;
    const hub = await startTestHub(options);
    let closed = false;
    t.teardown(() => (closed ? undefined : hub.close()));
    const push = async (items: unknown[]) => {
      const body = JSON.stringify({ flags: items });
      const res = await fetch(`${hub.url}/api/v1/flags/feed`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...signFlagRequest({ secret: SECRET, method: 'POST', path: '/api/v1/flags/feed', body }),
        },
        body,
      });
      return (await res.json()) as any;
    };
    const status = async (name: string, version: string) => {
      const res = await fetch(`${hub.url}/proxy/npm/${name}/${version}/tarball`, {
        headers: { authorization: `Bearer ${hub.adminToken}` },
      });
      await res.arrayBuffer();
      return res.status;
    };
    const health = async () => {
      const res = await fetch(`${hub.url}/api/v1/admin/health`, {
        headers: { authorization: `Bearer ${hub.adminToken}` },
      });
      return ((await res.json()) as any).flags.hard_blocks_held;
    };
    t.match(
      await push([
        {
          external_id: 'SMALL',
          registry: 'npm',
          package_name: 'hubdep',
          version: '1.0.0',
          kind: 'malware',
          effect: 'hard_block',
        },
      ]),
      { accepted: 1 },
    );
    t.equal(await status('hubdep', '1.0.0'), 403, 'held and refused');
    t.match(await health(), { flags: 1, max_bytes: 2048, problem: null }, 'health shows the held set against its cap');
    const long = 'x'.repeat(1000);
    const over = await push([
      {
        external_id: 'LARGE',
        registry: 'npm',
        package_name: 'hubdemo',
        version: '1.0.0',
        kind: 'malware',
        effect: 'hard_block',
        summary: long,
      },
      {
        external_id: 'WARN',
        registry: 'npm',
        package_name: 'hubdemo',
        version: '1.0.0',
        kind: 'malware',
        effect: 'warn',
        summary: long,
      },
    ]);
    t.match(
      over,
      { accepted: 1, rejected: 1, errors: [{ index: 0, reason: /flag_hard_block_bytes/ }] },
      'a hard block that cannot be held is refused at push; other effects are stored',
    );
    t.equal(await status('hubdemo', '1.0.0'), 200, 'the refused hard block was not stored');

    // Replicas pushing at once can each fit alone and pass the cap together: simulated by a row another replica
    // stored. The reload over the cap keeps the held set and marks it incomplete; the rule then reads the database.
    const row = {
      source: 'feed',
      external_id: 'OTHER-REPLICA',
      registry: 'npm',
      package_name: 'hubdemo',
      version: '1.0.0',
      kind: 'malware',
      effect: 'hard_block',
      summary: long,
      state: 'active',
      raised_at: Date.now(),
      updated_at: Date.now(),
    };
    await hub.hub.db('flags').insert(row);
    await hub.hub.db('flag_changes').where({ id: 1 }).increment('counter', 1);
    for (let i = 0; i < 200 && (await health()).problem === null; i++) await new Promise((r) => setTimeout(r, 50));
    t.match(await health(), { flags: 1, problem: /flag_hard_block_bytes/ }, 'health names the problem');
    t.equal(await status('hubdep', '1.0.0'), 403, 'over the cap, the previous set stays in force');
    t.equal(
      await status('hubdemo', '1.0.0'),
      403,
      'the hard block that did not fit is read from the database: refused, not served',
    );
    await hub.close();
    closed = true;
    await t.rejects(
      startTestHub(options),
      /flag_hard_block_bytes \(2048 bytes\)/,
      'a start that cannot hold every hard block is refused, naming the key',
    );
  },
);
