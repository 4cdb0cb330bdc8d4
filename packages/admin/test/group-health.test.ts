/**
 * A group registry (decision 0051) on the admin API: the health card lists it with its members and each member's
 * state, and the audit log names the group and the member that served (`via_group`, a filter too).
 */
import t from 'tap';
import { setup } from './setup.js';

t.test('the health card shows a group with its members; the audit log names group and member', async (t) => {
  const s = await setup(t, {
    registries: (up) => [
      { name: 'npm-a', type: 'npm', mode: 'proxy', upstreams: [up, 'http://127.0.0.1:9'] },
      { name: 'npm-b', type: 'npm', mode: 'proxy', upstream: up },
      { name: 'npm', type: 'npm', mode: 'group', members: ['npm-a', 'npm-b'] },
    ],
    config: { server: { mirror_breaker_failures: 1 } },
  });
  const card = async () =>
    (await s.api('GET', '/api/v1/admin/health')).json.registries.find((r: { name: string }) => r.name === 'npm');
  t.match(await card(), {
    name: 'npm',
    mode: 'group',
    upstream: null,
    members: [
      { name: 'npm-a', mode: 'proxy', state: 'ok' },
      { name: 'npm-b', mode: 'proxy', state: 'ok' },
    ],
  });

  // Both mirrors of npm-a fail (a 503, then nothing listening): their breakers open and npm-a is down; npm-b serves.
  s.upstream.fault('/', { type: 'status', status: 503 }, 1);
  const tgz = await s.api('GET', '/proxy/npm/hubdep/-/hubdep-1.0.0.tgz');
  t.equal(tgz.status, 200, tgz.text);
  t.match((await card()).members, [
    { name: 'npm-a', state: 'down' },
    { name: 'npm-b', state: 'ok' },
  ]);

  const log = (await s.api('GET', '/api/v1/admin/audit-log?via_group=npm&action=download')).json.entries;
  t.match(
    log,
    [{ registry: 'npm-b', via_group: 'npm', package: 'hubdep', version: '1.0.0' }],
    'npm-a failed with a 502 after its mirrors; npm-b served',
  );
  const direct = (await s.api('GET', '/api/v1/admin/audit-log?registry=npm-b')).json.entries;
  t.ok(direct.every((e: { via_group: string | null }) => e.via_group === 'npm'));
});
