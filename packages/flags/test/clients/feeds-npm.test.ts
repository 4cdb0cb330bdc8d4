/**
 * Issue 30: OSV advisory feeds pulled by hub. A loopback feed server answers with an ETag; each pull goes
 * through the admin API's "pull now", so nothing waits on the schedule (feeds-replicas.test.ts covers it).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { missingClient, npmEnv } from '@hub/testkit';
import { ECOSYSTEMS, feedHub } from '../feed-hub.js';
import { startOsvFeedServer } from '../osv-feed-server.js';

const noNpm = (await promisify(execFile)('npm', ['--version']).then(
  () => true,
  () => false,
))
  ? false
  : missingClient('npm');

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

async function world(t: Test, feed: Record<string, unknown> = {}) {
  const server = await startOsvFeedServer();
  t.teardown(() => server.close());
  server.serve(RECORDS);
  const s = await feedHub(t, [{ name: 'osv', url: server.url, effect: 'hard_block', ecosystems: ECOSYSTEMS, ...feed }]);
  return { server, ...s };
}

t.test(
  'a real npm install of the flagged version is refused with the advisory; a 304 keeps the state',
  { skip: noNpm },
  async (t) => {
    const w = await world(t);
    t.match((await w.pull('osv')).json, { outcome: 'updated' });
    const registry = `${w.hub.url}/proxy/npm/`;
    const err = await npmEnv(t, registry, await w.hub.token('ci', { roles: ['reader'] })).install('hubdemo@1.1.0');
    t.not(err.code, 0, 'npm install fails');
    t.match(
      err.stderr,
      /hubdep 1\.0\.0 \(in >=0\.9\.0 <1\.0\.1\) is flagged vulnerability \(hard_block\) by flag source feed:osv, GHSA-hub1-0001-aaaa:npm:hubdep: prototype pollution in hubdep/,
      "npm shows hub's reason",
    );

    const again = await w.pull('osv');
    t.match(again.json, { outcome: 'not_modified', feed: { healthy: true, flags: 7 } });
    t.match(w.server.requests.at(-1), { ifNoneMatch: /^"/, status: 304 }, 'asked with If-None-Match, answered 304');
    t.equal((await w.flags()).length, 7, 'the flags stay');
  },
);

t.test('effect warn: npm install succeeds, and npm audit names the advisory', { skip: noNpm }, async (t) => {
  const w = await world(t, { effect: 'warn' });
  await w.pull('osv');
  const p = npmEnv(t, `${w.hub.url}/proxy/npm/`, await w.hub.token('ci', { roles: ['reader'] }));
  const install = await p.npm(['install', 'hubdemo@1.1.0']);
  t.equal(install.code, 0, `npm install: ${install.stderr}`);
  const audit = JSON.parse((await p.npm(['audit', '--json'])).stdout) as {
    vulnerabilities: Record<string, { via: unknown[] }>;
  };
  t.match(audit.vulnerabilities.hubdep, {
    via: [
      {
        source: 'hub:feed:osv:GHSA-hub1-0001-aaaa:npm:hubdep',
        title: 'prototype pollution in hubdep',
        range: '>=0.9.0 <1.0.1',
      },
    ],
  });
});
