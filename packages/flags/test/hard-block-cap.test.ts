import { fileURLToPath } from 'node:url';
import t from 'tap';
import admin from '@hub/admin';
import npm from '@hub/kind-npm';
import { npmFixtureHandler, signFlagRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import flags from '../src/index.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));
const SECRET = 'cap-secret';

t.test('the memory held for hard_block flags is capped in bytes: a reload over it keeps the previous set, a start over it is refused', async (t) => {
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
    const res = await fetch(`${hub.url}/api/v1/flags/feed`, { method: 'POST', headers: { 'content-type': 'application/json', ...signFlagRequest({ secret: SECRET, method: 'POST', path: '/api/v1/flags/feed', body }) }, body });
    return (await res.json()) as any;
  };
  const status = async (name: string, version: string) => {
    const res = await fetch(`${hub.url}/proxy/npm/${name}/${version}/tarball`, { headers: { authorization: `Bearer ${hub.adminToken}` } });
    await res.arrayBuffer();
    return res.status;
  };
  t.match(await push([{ external_id: 'SMALL', registry: 'npm', package_name: 'hubdep', version: '1.0.0', kind: 'malware', effect: 'hard_block' }]), { accepted: 1 });
  t.equal(await status('hubdep', '1.0.0'), 403, 'held and refused');
  const long = 'x'.repeat(1000);
  t.match(await push([{ external_id: 'LARGE', registry: 'npm', package_name: 'hubdemo', version: '1.0.0', kind: 'malware', effect: 'hard_block', summary: long }]), { accepted: 1 }, 'stored: the database has room');
  t.equal(await status('hubdep', '1.0.0'), 403, 'over the cap, the previous set stays in force');
  t.equal(await status('hubdemo', '1.0.0'), 200, 'the flag that did not fit is not held (the error log says so)');
  await hub.close();
  closed = true;
  await t.rejects(startTestHub(options), /flag_hard_block_bytes \(2048 bytes\)/, 'a start that cannot hold every hard block is refused, naming the key');
});
