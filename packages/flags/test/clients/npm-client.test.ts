import t from 'tap';
import { npmEnv } from '@hub/testkit';
import { npmFlagsHub } from '../npm-flags-hub.js';

const SECRET = 'scanner-secret';

t.test(
  'a security team flags a dependency: the next npm install is refused, and the exposure report names who already has it',
  async (t) => {
    const { hub, push } = await npmFlagsHub(t, { name: 'scanner', secret: SECRET });
    const registry = `${hub.url}/proxy/npm/`;

    t.match(await npmEnv(t, registry, await hub.token('ci-early', { roles: ['reader'] })).install('hubdemo@1.1.0'), {
      code: 0,
    });
    await hub.hub.audit.flush();
    await new Promise((r) => setTimeout(r, 5));

    const pushed = await push([
      {
        external_id: 'MAL-1',
        registry: 'npm',
        package_name: 'hubdep',
        version: '1.0.0',
        kind: 'malware',
        effect: 'hard_block',
        summary: 'exfiltrates tokens',
      },
    ]);
    t.equal(pushed.status, 200);

    const err = await npmEnv(t, registry, await hub.token('ci-late', { roles: ['reader'] })).install('hubdemo@1.1.0');
    t.not(err.code, 0, 'npm install fails');
    t.match(err.stderr, /E403|403 Forbidden/, 'npm reports the 403');
    t.match(err.stderr, /hubdep/, 'on the flagged dependency');
    t.match(
      err.stderr,
      /403 Forbidden: hubdep 1\.0\.0 is flagged malware/,
      'and in its error line, from the status line',
    );
    t.match(
      err.stderr,
      /npm notice hub: hubdep 1\.0\.0 is flagged malware \(hard_block\) by flag source scanner, MAL-1: exfiltrates tokens/,
      "npm shows hub's reason",
    );

    await hub.hub.audit.flush();
    const res = await fetch(`${hub.url}/api/v1/admin/exposure?when=before-flag`, {
      headers: { authorization: `Bearer ${hub.adminToken}` },
    });
    const rows = ((await res.json()) as { rows: Array<Record<string, unknown>> }).rows;
    t.match(
      rows,
      [
        {
          consumer: 'ci-early',
          package_name: 'hubdep',
          version: '1.0.0',
          exposure: 'direct',
          external_id: 'MAL-1',
          fetches_before_flag: 1,
        },
      ],
      'the early install is exposed; the refused one is not',
    );
    t.equal(rows.length, 1);
  },
);

t.test(
  'a range-flagged dependency: npm install is refused with the reason, naming the version the range caught',
  async (t) => {
    const { hub, push } = await npmFlagsHub(t, { name: 'scanner', secret: SECRET });
    const registry = `${hub.url}/proxy/npm/`;
    const pushed = await push([
      {
        external_id: 'GHSA-r4ng',
        registry: 'npm',
        package_name: 'hubdep',
        version_range: '>=0.9.0 <1.0.1',
        kind: 'vulnerability',
        effect: 'hard_block',
        summary: 'prototype pollution',
        fixed_version: '1.0.1',
      },
    ]);
    t.match(await pushed.json(), { accepted: 1, rejected: 0 });

    const err = await npmEnv(t, registry, await hub.token('ci', { roles: ['reader'] })).install('hubdemo@1.1.0');
    t.not(err.code, 0, 'npm install fails');
    t.match(err.stderr, /E403|403 Forbidden/, 'npm reports the 403');
    t.match(
      err.stderr,
      /npm notice hub: hubdep 1\.0\.0 \(in >=0\.9\.0 <1\.0\.1\) is flagged vulnerability \(hard_block\) by flag source scanner, GHSA-r4ng: prototype pollution/,
      "npm shows hub's reason",
    );
  },
);
