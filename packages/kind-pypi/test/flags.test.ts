/**
 * Flags on a pypi registry (issue 26): an exact version in one PEP 440 spelling covers every spelling, and
 * `version_range` is a PEP 440 specifier set. Pushed signed, as a flag source does; the admin and flags
 * plugins are loaded by name, as `[plugins] load` would.
 */
import t, { type Test } from 'tap';
import { signFlagRequest } from '@hub/testkit';
import { get, setup } from './setup.js';
import { wheel, type FixtureDist } from './simple-fixture.js';

const SOURCE = { name: 'osv', secret: 'pypi-flag-secret' };
const dists = (): FixtureDist[] =>
  ['1.0', '1.1.0', '1.2rc1', '2.0.0'].map((v) => ({ project: 'hub-demo', ...wheel('hub_demo', v) }));
const fileOf = (v: string) => `files/hub-demo/hub_demo-${v}-py3-none-any.whl`;

async function world(t: Test) {
  const s = await setup(t, {
    dists,
    config: { plugins: { load: ['@hub/admin', '@hub/flags'] }, flag_sources: [SOURCE] } as never,
  });
  const token = await s.token('ci');
  const push = async (flag: Record<string, unknown>) => {
    const path = `/api/v1/flags/${SOURCE.name}`;
    const body = JSON.stringify({
      flags: [{ registry: 'py', package_name: 'Hub_Demo', kind: 'vulnerability', effect: 'hard_block', ...flag }],
    });
    const res = await fetch(`${s.url}${path}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...signFlagRequest({ secret: SOURCE.secret, method: 'POST', path, body }),
      },
      body,
    });
    return { status: res.status, body: (await res.json()) as { accepted: number; errors: Array<{ reason: string }> } };
  };
  const status = async (v: string) => (await get(`${s.base}/${fileOf(v)}`, token)).status;
  const exposure = async () => {
    await s.hub.audit.flush();
    const res = await fetch(`${s.url}/api/v1/admin/exposure`, { headers: { authorization: `Bearer ${s.adminToken}` } });
    return (
      (await res.json()) as {
        rows: Array<{ consumer: string; version: string; external_id: string; fetches_before_flag: number }>;
      }
    ).rows;
  };
  return { s, push, status, exposure };
}

t.test('an exact flag on v1.0.0 refuses the file spelt 1.0, and its exposure counts the fetches of 1.0', async (t) => {
  const w = await world(t);
  t.equal(await w.status('1.0'), 200, 'fetched before the flag');
  t.equal((await w.push({ external_id: 'PYSEC-1', version: 'v1.0.0' })).status, 200);
  t.equal(await w.status('1.0'), 403, '1.0 is v1.0.0');
  t.equal(await w.status('1.1.0'), 200, 'another version is served');
  t.match(
    await w.exposure(),
    [{ consumer: 'ci', version: '1.0', external_id: 'PYSEC-1', fetches_before_flag: 1 }],
    'the fetch of 1.0 is exposure to the flag on v1.0.0',
  );
});

t.test('version_range is a PEP 440 specifier set', async (t) => {
  const w = await world(t);
  const pushed = await w.push({ external_id: 'PYSEC-2', version_range: '>=1.1,<2.0' });
  t.equal(pushed.status, 200, JSON.stringify(pushed.body));
  t.equal(await w.status('1.1.0'), 403, '1.1.0 is in >=1.1,<2.0');
  t.equal(await w.status('1.2rc1'), 403, 'a pre-release inside the range is covered (a flag fails closed)');
  t.equal(await w.status('1.0'), 200, '1.0 is below the range');
  t.equal(await w.status('2.0.0'), 200, '2.0.0 is above it');

  // A batch answers 200 with each refused item's reason.
  const bad = await w.push({ external_id: 'PYSEC-3', version_range: '>=one' });
  t.equal(bad.body.accepted, 0, JSON.stringify(bad.body));
  t.match(
    bad.body.errors[0]?.reason,
    /version_range: ">=one" is not a pypi version range: "one" is not a PEP 440 version/,
  );
  const npmish = await w.push({ external_id: 'PYSEC-4', version_range: '^1.0.0' });
  t.equal(npmish.body.accepted, 0, 'an npm range is not PEP 440');
});
