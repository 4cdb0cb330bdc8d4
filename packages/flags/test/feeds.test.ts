/**
 * Issue 30: OSV advisory feeds pulled by hub. A loopback feed server answers with an ETag; each pull goes
 * through the admin API's "pull now", so nothing waits on the schedule (feeds-replicas.test.ts covers it). npm itself: clients/feeds-npm.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { makeZip } from '@hub/testkit';
import { ECOSYSTEMS, feedHub } from './feed-hub.js';
import { startOsvFeedServer } from './osv-feed-server.js';

const NPM_ADVISORY = {
  id: 'GHSA-hub1-0001-aaaa',
  modified: '2026-01-01T00:00:00Z',
  aliases: ['CVE-2026-0001'],
  summary: 'prototype pollution in hubdep',
  references: [{ type: 'ADVISORY', url: 'https://advisories.example/GHSA-hub1-0001-aaaa' }],
  database_specific: { severity: 'HIGH' },
  affected: [
    {
      package: { ecosystem: 'npm', name: 'hubdep' },
      ranges: [{ type: 'SEMVER', events: [{ introduced: '0.9.0' }, { fixed: '1.0.1' }] }],
    },
  ],
};
const PYPI_ADVISORY = {
  id: 'PYSEC-2026-7',
  modified: '2026-01-01T00:00:00Z',
  aliases: ['CVE-2026-0007', 'GHSA-hub1-0007-bbbb'],
  summary: 'path traversal',
  affected: [
    {
      package: { ecosystem: 'PyPI', name: 'Hub_Demo' },
      ranges: [
        {
          type: 'ECOSYSTEM',
          events: [{ introduced: '0' }, { fixed: '1.2' }, { introduced: '2.0' }, { last_affected: '2.0.3' }],
        },
      ],
      versions: ['1.0', '1.1', '2.0', '2.0.3'],
    },
    // Only commits, and a list of versions: one flag per version.
    {
      package: { ecosystem: 'PyPI', name: 'other-lib' },
      ranges: [{ type: 'GIT', repo: 'https://forge.example/o/l', events: [{ introduced: 'abc' }] }],
      versions: ['0.1', '0.2'],
    },
  ],
};
const MAVEN_ADVISORY = {
  id: 'GHSA-hub1-0044-cccc',
  modified: '2026-01-01T00:00:00Z',
  aliases: ['CVE-2021-44228'],
  summary: 'remote code execution through lookups',
  database_specific: { severity: 'CRITICAL' },
  affected: [
    {
      package: { ecosystem: 'Maven', name: 'org.apache.logging.log4j:log4j-core' },
      ranges: [
        {
          type: 'ECOSYSTEM',
          events: [
            { introduced: '2.0-beta9' },
            { fixed: '2.15.0' },
            { introduced: '2.16.0' },
            { last_affected: '2.16.0' },
          ],
        },
      ],
    },
    // An ecosystem the feed does not map: skipped.
    {
      package: { ecosystem: 'Go', name: 'example.org/mod' },
      ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }] }],
    },
  ],
};
const MALWARE = {
  id: 'MAL-2026-9',
  modified: '2026-01-01T00:00:00Z',
  summary: 'exfiltrates tokens',
  affected: [
    { package: { ecosystem: 'npm', name: 'evil-pkg' }, ranges: [{ type: 'SEMVER', events: [{ introduced: '0' }] }] },
  ],
};
const RECORDS = [NPM_ADVISORY, PYPI_ADVISORY, MAVEN_ADVISORY, MALWARE];

const byId = (flags: any[]) => Object.fromEntries(flags.map((f) => [f.external_id, f]));

async function world(t: Test, feed: Record<string, unknown> = {}) {
  const server = await startOsvFeedServer();
  t.teardown(() => server.close());
  server.serve(RECORDS);
  const s = await feedHub(t, [{ name: 'osv', url: server.url, effect: 'hard_block', ecosystems: ECOSYSTEMS, ...feed }]);
  return { server, ...s };
}

t.test(
  "a pull turns OSV records into flags with ranges in each ecosystem's syntax, advisory ids and aliases",
  async (t) => {
    const w = await world(t);
    const pulled = await w.pull('osv');
    t.equal(pulled.status, 200);
    t.match(pulled.json, {
      outcome: 'updated',
      feed: { name: 'osv', healthy: true, records: 4, flags: 7, source: 'feed:osv' },
    });
    const f = byId(await w.flags());
    t.same(Object.keys(f).sort(), [
      'GHSA-hub1-0001-aaaa:npm:hubdep',
      'GHSA-hub1-0044-cccc:maven:org.apache.logging.log4j:log4j-core',
      'MAL-2026-9:npm:evil-pkg',
      'PYSEC-2026-7:pypi:hub-demo',
      'PYSEC-2026-7:pypi:hub-demo#2',
      'PYSEC-2026-7:pypi:other-lib',
      'PYSEC-2026-7:pypi:other-lib#2',
    ]);
    t.match(f['GHSA-hub1-0001-aaaa:npm:hubdep'], {
      source: 'feed:osv',
      registry: 'npm',
      package_name: 'hubdep',
      version: null,
      version_range: '>=0.9.0 <1.0.1',
      kind: 'vulnerability',
      effect: 'hard_block',
      summary: 'prototype pollution in hubdep',
      severity: 'high',
      reference_url: 'https://advisories.example/GHSA-hub1-0001-aaaa',
      fixed_version: '1.0.1',
      aliases: ['CVE-2026-0001'],
      state: 'active',
    });
    t.equal(f['PYSEC-2026-7:pypi:hub-demo']!.version_range, '<1.2', 'PEP 440, the name normalised');
    t.equal(
      f['PYSEC-2026-7:pypi:hub-demo#2']!.version_range,
      '>=2.0,<=2.0.3',
      'PEP 440 has no "or": one flag per interval',
    );
    t.same(f['PYSEC-2026-7:pypi:hub-demo']!.aliases, ['CVE-2026-0007', 'GHSA-hub1-0007-bbbb']);
    t.same(
      [f['PYSEC-2026-7:pypi:other-lib']!.version, f['PYSEC-2026-7:pypi:other-lib#2']!.version],
      ['0.1', '0.2'],
      'GIT ranges only: the versions list',
    );
    t.equal(
      f['GHSA-hub1-0044-cccc:maven:org.apache.logging.log4j:log4j-core']!.version_range,
      '[2.0-beta9,2.15.0),[2.16.0,2.16.0]',
      'maven intervals',
    );
    t.match(
      f['MAL-2026-9:npm:evil-pkg'],
      { version_range: '*', kind: 'malware' },
      'introduced 0, never fixed: every version',
    );

    // The ranges do what the advisory says, in each kind's own order (refused before any upstream is asked).
    const status = async (p: string) =>
      (await fetch(`${w.hub.url}/proxy/${p}`, { headers: { authorization: `Bearer ${w.hub.adminToken}` } })).status;
    const wheel = (v: string) => `pypi/files/hub-demo/hub_demo-${v}-py3-none-any.whl`;
    const jar = (v: string) => `maven/maven2/org/apache/logging/log4j/log4j-core/${v}/log4j-core-${v}.jar`;
    t.same(
      await Promise.all(['1.1', '1.2rc1', '1.2', '2.0.3', '2.0.3.post1', '2.0.4'].map((v) => status(wheel(v)))).then(
        (s) => s.map((x) => x === 403),
      ),
      [true, true, false, true, false, false],
      'PEP 440: <1.2 holds 1.2rc1; <=2.0.3 ends at 2.0.3 (its post-release sorts after it)',
    );
    t.same(
      await Promise.all(['2.0-beta9', '2.14.1', '2.15.0', '2.16.0', '2.17.0'].map((v) => status(jar(v)))).then((s) =>
        s.map((x) => x === 403),
      ),
      [true, true, false, true, false],
      'maven: [2.0-beta9,2.15.0) and [2.16.0,2.16.0]',
    );
  },
);

t.test('a withdrawn record, and a record gone from the feed, lift their flags; others stay', async (t) => {
  const w = await world(t);
  await w.pull('osv');
  w.server.serve([{ ...NPM_ADVISORY, withdrawn: '2026-02-01T00:00:00Z' }, PYPI_ADVISORY, MALWARE]);
  t.match((await w.pull('osv')).json, { outcome: 'updated', feed: { flags: 5 } });
  const f = byId(await w.flags(true));
  t.equal(f['GHSA-hub1-0001-aaaa:npm:hubdep']!.state, 'tombstone', 'withdrawn: lifted');
  t.equal(
    f['GHSA-hub1-0044-cccc:maven:org.apache.logging.log4j:log4j-core']!.state,
    'tombstone',
    'gone from the feed: lifted',
  );
  t.equal(f['MAL-2026-9:npm:evil-pkg']!.state, 'active');
  t.equal(
    (
      await fetch(`${w.hub.url}/proxy/npm/hubdep/-/hubdep-1.0.0.tgz`, {
        headers: { authorization: `Bearer ${w.hub.adminToken}` },
      })
    ).status,
    200,
    'the lifted version is served again',
  );
});

t.test(
  'a failing feed keeps the last good flags, shows unhealthy, counts and alerts once; a good pull recovers',
  async (t) => {
    const w = await world(t);
    await w.pull('osv');
    const tgz = () =>
      fetch(`${w.hub.url}/proxy/npm/hubdep/-/hubdep-1.0.0.tgz`, {
        headers: { authorization: `Bearer ${w.hub.adminToken}` },
      });
    t.equal((await tgz()).status, 403);
    w.server.fail(500);
    t.match((await w.pull('osv')).json, {
      outcome: 'failed',
      problem: 'the feed answered HTTP 500',
      feed: { healthy: false, failures: 1, flags: 7 },
    });
    t.match((await w.pull('osv')).json, { outcome: 'failed', feed: { failures: 2 } });
    t.equal((await tgz()).status, 403, 'still refused');
    t.match((await w.api('GET', '/api/v1/admin/advisory-feeds')).json, {
      feeds: [{ name: 'osv', healthy: false, problem: 'the feed answered HTTP 500' }],
    });
    t.match((await w.api('GET', '/api/v1/admin/health')).json.advisory_feeds, {
      healthy: false,
      feeds: [{ name: 'osv', healthy: false, problem: 'the feed answered HTTP 500', flags: 7 }],
    });
    const events = (await w.api('GET', '/api/v1/admin/events?type=advisory_feed_failed')).json.events;
    t.equal(events.length, 1, 'one alert for the outage');
    t.match(events[0].data, { feed: 'osv', problem: 'the feed answered HTTP 500' });
    t.match(
      await (await fetch(`${w.hub.url}/metrics`)).text(),
      /hub_advisory_feed_pulls_total\{feed="osv",outcome="failed"\} 2/,
    );
    w.server.fail(null);
    t.match((await w.pull('osv')).json, { outcome: 'not_modified', feed: { healthy: true, failures: 0 } });
    t.equal((await w.api('GET', '/api/v1/admin/events?type=advisory_feed_recovered')).json.events.length, 1);
  },
);

t.test('a feed nobody answers for fails with the network error', async (t) => {
  const server = await startOsvFeedServer();
  const url = server.url;
  await server.close(); // the port is closed now: connections are refused
  const w = await feedHub(t, [{ name: 'down', url, ecosystems: ECOSYSTEMS }]);
  t.match((await w.pull('down')).json, {
    outcome: 'failed',
    problem: /^fetching the feed failed: ECONNREFUSED/,
    feed: { healthy: false, flags: 0 },
  });
  t.match(
    (await w.api('GET', '/api/v1/admin/events?type=advisory_feed_failed')).json.events,
    [{ data: { feed: 'down', last_success_at: null } }],
    'a feed that never worked alerts too',
  );
});

t.test(
  'malformed, oversized and wrong-shaped feeds are refused whole; a bad record is skipped and keeps its flags',
  async (t) => {
    const w = await world(t, { max_bytes: 4096, max_flags: 10 });
    await w.pull('osv');
    w.server.serve(Buffer.from('[{"id": "GHSA-'), 'application/json');
    t.match((await w.pull('osv')).json, { outcome: 'failed', problem: /^the feed is not JSON/ });
    w.server.serve(Buffer.from(JSON.stringify({ records: RECORDS })), 'application/json');
    t.match((await w.pull('osv')).json, {
      outcome: 'failed',
      problem: /neither a JSON array of OSV records nor a zip/,
    });
    w.server.serve(
      Buffer.from(JSON.stringify([...RECORDS, { id: 'X-1', summary: 'x'.repeat(5000) }])),
      'application/json',
    );
    t.match((await w.pull('osv')).json, { outcome: 'failed', problem: /over max_bytes \(4096\)/ });
    w.server.serve([...RECORDS, ...Array.from({ length: 10 }, (_, i) => ({ ...MALWARE, id: `MAL-2026-${100 + i}` }))]);
    t.match((await w.pull('osv')).json, {
      outcome: 'failed',
      problem: 'the feed raises more than max_flags (10) flags',
    });
    t.equal((await w.flags()).length, 7, 'every failure kept the flags');
    // The npm record's affected list is not a list this time: it is skipped, and its flag stays.
    w.server.serve([{ ...NPM_ADVISORY, affected: 'hubdep' }, PYPI_ADVISORY, MAVEN_ADVISORY]);
    t.match((await w.pull('osv')).json, { outcome: 'updated', feed: { skipped: 1, flags: 6 } });
    t.equal(byId(await w.flags())['GHSA-hub1-0001-aaaa:npm:hubdep']?.state, 'active');
  },
);

t.test('a zip of OSV files (the bulk export format) is read entry by entry, within the archive limits', async (t) => {
  const w = await world(t, { max_records: 4 });
  w.server.serve(makeZip(Object.fromEntries(RECORDS.map((r) => [`${r.id}.json`, JSON.stringify(r)]))));
  t.match((await w.pull('osv')).json, { outcome: 'updated', feed: { records: 4, flags: 7 } });
  w.server.serve(
    makeZip(
      Object.fromEntries(
        [...RECORDS, { ...MALWARE, id: 'MAL-2026-10' }].map((r) => [`${r.id}.json`, JSON.stringify(r)]),
      ),
    ),
  );
  t.match((await w.pull('osv')).json, { outcome: 'failed', problem: /zip has more than 4 entries/ });
  // An entry inflating past max_record_bytes (a small zip of zeros) stops at the cap.
  w.server.serve(makeZip({ 'GHSA-big.json': Buffer.alloc(5 * 1024 * 1024) }));
  t.match((await w.pull('osv')).json, {
    outcome: 'failed',
    problem: /zip entry "GHSA-big\.json" is 5242880 bytes \(cap 4194304\)/,
  });
  w.server.serve(makeZip({ 'GHSA-1.json': '{not json' }));
  t.match((await w.pull('osv')).json, { outcome: 'failed', problem: /zip entry "GHSA-1\.json" is not JSON/ });
  w.server.serve(Buffer.concat([Buffer.from('PK\u0003\u0004'), Buffer.alloc(100)]));
  t.match((await w.pull('osv')).json, { outcome: 'failed', problem: /^the feed's zip: / });
  t.equal((await w.flags()).length, 7);
});

t.test('a directory of OSV files: read recursively, unchanged listing is not re-read', async (t) => {
  // Outside the hub's test folder, which feedHub makes afresh.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-osv-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const sub of ['npm', 'pypi']) fs.mkdirSync(path.join(dir, sub));
  fs.writeFileSync(path.join(dir, 'npm', 'GHSA-hub1-0001-aaaa.json'), JSON.stringify(NPM_ADVISORY));
  fs.writeFileSync(path.join(dir, 'pypi', 'PYSEC-2026-7.json'), JSON.stringify(PYPI_ADVISORY));
  fs.writeFileSync(path.join(dir, 'README.md'), 'not a record');
  const w = await feedHub(t, [
    { name: 'local', directory: dir, effect: 'gate', ecosystems: { npm: ['npm'], PyPI: ['pypi'] } },
  ]);
  t.match((await w.pull('local')).json, { outcome: 'updated', feed: { records: 2, flags: 5, directory: dir } });
  t.match((await w.pull('local')).json, { outcome: 'not_modified' });
  fs.rmSync(path.join(dir, 'npm', 'GHSA-hub1-0001-aaaa.json'));
  t.match((await w.pull('local')).json, { outcome: 'updated', feed: { records: 1, flags: 4 } });
  t.match(await w.api('POST', '/api/v1/admin/advisory-feeds/nope/pull'), { status: 404 });
});

t.test('redirects are followed, a few times', async (t) => {
  const server = await startOsvFeedServer();
  t.teardown(() => server.close());
  server.serve(RECORDS);
  const w = await feedHub(t, [
    { name: 'moved', url: server.url.replace(/\/feed$/, '/moved'), ecosystems: ECOSYSTEMS },
    { name: 'loop', url: server.url.replace(/\/feed$/, '/loop'), ecosystems: ECOSYSTEMS },
  ]);
  t.match((await w.pull('moved')).json, { outcome: 'updated', feed: { flags: 7 } });
  t.match((await w.pull('loop')).json, { outcome: 'failed', problem: 'the feed redirected more than 5 times' });
});

t.test('a changed feed config is applied at the next pull, though the feed answers 304', async (t) => {
  const server = await startOsvFeedServer();
  t.teardown(() => server.close());
  server.serve(RECORDS);
  const dir = t.testdir();
  const first = await feedHub(t, [{ name: 'osv', url: server.url, effect: 'hard_block', ecosystems: ECOSYSTEMS }], {
    dir,
  });
  t.match((await first.pull('osv')).json, { outcome: 'updated' });
  t.match((await first.pull('osv')).json, { outcome: 'not_modified' }, 'the same config: 304 is trusted');
  await first.hub.close();
  const second = await feedHub(t, [{ name: 'osv', url: server.url, effect: 'warn', ecosystems: { npm: ['npm'] } }], {
    dir,
  });
  t.match((await second.pull('osv')).json, { outcome: 'updated', feed: { flags: 2 } });
  t.equal(server.requests.at(-1)!.ifNoneMatch, null, 'asked without the old ETag');
  t.same(
    (await second.flags()).map((f) => [f.external_id, f.effect]),
    [
      ['GHSA-hub1-0001-aaaa:npm:hubdep', 'warn'],
      ['MAL-2026-9:npm:evil-pkg', 'warn'],
    ],
  );
});
