/**
 * Waivers end to end (decision 0067) on SQLite and, where HUB_TEST_MYSQL_URL is set, on MariaDB/MySQL: a real
 * `npm install` through a block and through a flag, lifted for exactly one user or token by a waiver that a
 * second person approved, refused again once the waiver expires; every step in the audit log.
 */
import t from 'tap';
import { npmEnv, storeTiers } from '@hub/testkit';
import { waiverHub } from '../waiver-hub.js';

const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);
const DAY = 86_400_000;
const later = (ms: number) => new Date(Date.now() + ms).toISOString();
const until = async (ms: number) => {
  while (Date.now() < ms) await new Promise((r) => setTimeout(r, Math.min(200, Math.max(1, ms - Date.now()))));
};

for (const store of tiers) {
  t.test(`${store.name}: a waiver lifts a block, then a flag, for exactly one consumer, until it ends`, async (t) => {
    const db = await store.database(t, t.testdir());
    const { hub, registry, api, push } = await waiverHub(t, db);
    const alice = await hub.token('alice', { roles: ['operator', 'reader'] });
    const aliceAgain = await hub.token('alice', { roles: ['operator', 'reader'] });
    const carol = await hub.token('carol', { roles: ['operator', 'reader'] });
    const bob = await hub.token('bob', { roles: ['reader'] });
    const dave = await hub.token('dave', { roles: ['reader'] });
    const install = (token: string) => npmEnv(t, registry, token).install('hubdemo@1.1.0');

    // A block on hubdep, which hubdemo depends on.
    const block = await api(hub.adminToken, 'POST', '/api/v1/admin/blocks', {
      registry: 'npm',
      package_name: 'hubdep',
      reason: 'under review',
    });
    t.equal(block.status, 201);
    const refused = await install(bob);
    t.not(refused.code, 0, 'blocked for bob before any waiver');
    t.match(refused.stderr, /package hubdep is blocked by admin: under review/);

    // Alice asks for bob; neither alice (with any of her tokens) nor bob's lack of system:write can approve it.
    const body = {
      target: `block:${block.json.id}`,
      registry: 'npm',
      package_name: 'hubdep',
      scope: { type: 'user', id: 'bob' },
      reason: 'bob ships the hotfix today',
      expires_at: later(DAY),
    };
    t.equal(
      (await api(alice, 'POST', '/api/v1/admin/waivers', { ...body, expires_at: later(31 * DAY) })).status,
      400,
      'past [waivers] max_days',
    );
    t.equal(
      (await api(alice, 'POST', '/api/v1/admin/waivers', { ...body, target: 'block:999999' })).status,
      404,
      'an unknown block',
    );
    t.equal(
      (await api(alice, 'POST', '/api/v1/admin/waivers', { ...body, package_name: 'hubdemo' })).status,
      400,
      'a block on another package',
    );
    const asked = await api(alice, 'POST', '/api/v1/admin/waivers', body);
    t.equal(asked.status, 201);
    t.match(asked.json, {
      state: 'pending',
      requested_by: 'alice',
      scope: { type: 'user', id: 'bob' },
      target: `block:${block.json.id}`,
    });
    const id = asked.json.id as number;
    t.equal((await install(bob)).code === 0, false, 'a pending waiver lifts nothing');
    t.equal((await api(alice, 'POST', `/api/v1/admin/waivers/${id}/approve`)).status, 403, 'not by its requester');
    const again = await api(aliceAgain, 'POST', `/api/v1/admin/waivers/${id}/approve`);
    t.equal(again.status, 403, "nor with the requester's other token");
    t.match(again.json.error.message, /requested by alice: another person must approve it/);
    t.equal((await api(bob, 'POST', `/api/v1/admin/waivers/${id}/approve`)).status, 403, 'nor without system:write');
    const approved = await api(carol, 'POST', `/api/v1/admin/waivers/${id}/approve`);
    t.equal(approved.status, 200);
    t.match(approved.json, { state: 'active', decided_by: 'carol' });
    t.equal((await api(carol, 'POST', `/api/v1/admin/waivers/${id}/approve`)).status, 409, 'once');

    // Bob installs; alice, dave and the anonymous stay refused, with the reason.
    const ok = await install(bob);
    t.equal(ok.code, 0, `bob installs through the waiver: ${ok.stderr}`);
    for (const [who, token] of [
      ['alice', alice],
      ['dave', dave],
    ] as const) {
      const no = await install(token);
      t.not(no.code, 0, `${who} is still refused`);
      t.match(no.stderr, /npm notice hub: package hubdep is blocked by admin: under review/, `${who} sees why`);
    }

    // Revoked: bob is refused again at once on this replica.
    t.match((await api(carol, 'DELETE', `/api/v1/admin/waivers/${id}`)).json, {
      state: 'revoked',
      revoked_by: 'carol',
    });
    t.not((await install(bob)).code, 0, 'revoked: bob is refused again');
    t.equal((await api(hub.adminToken, 'DELETE', `/api/v1/admin/blocks/${block.json.id}`)).status, 200);

    // A flag: a hard block on hubdep 1.0.0, waived for one token of bob's only.
    t.equal(
      (
        await push([
          {
            external_id: 'MAL-1',
            registry: 'npm',
            package_name: 'hubdep',
            version: '1.0.0',
            kind: 'malware',
            effect: 'hard_block',
            summary: 'exfiltrates tokens',
          },
        ])
      ).status,
      200,
    );
    const bobCi = await hub.hub.services.tokens.issue({ user_id: 'bob' });
    const flagged = await install(bobCi.token);
    t.match(
      flagged.stderr,
      /hubdep 1\.0\.0 is flagged malware \(hard_block\) by flag source scanner, MAL-1/,
      'the flag refuses bob',
    );
    const fw = await api(carol, 'POST', '/api/v1/admin/waivers', {
      target: 'flag:scanner:MAL-1',
      registry: 'npm',
      package_name: 'hubdep',
      version: '1.0.0',
      scope: { type: 'token', id: bobCi.row.id },
      reason: 'false positive, checked by hand',
      expires_at: later(DAY),
    });
    t.equal(fw.status, 201);
    t.equal(
      (await api(carol, 'POST', `/api/v1/admin/waivers/${fw.json.id}/approve`)).status,
      403,
      'not by its requester',
    );
    const rejected = await api(alice, 'POST', `/api/v1/admin/waivers/${fw.json.id}/reject`);
    t.match(rejected.json, { state: 'rejected', decided_by: 'alice' }, 'a rejection');
    t.not((await install(bobCi.token)).code, 0, 'rejected: still refused');
    const fw2 = await api(carol, 'POST', '/api/v1/admin/waivers', {
      target: 'flag:scanner:MAL-1',
      registry: 'npm',
      package_name: 'hubdep',
      version: '1.0.0',
      scope: { type: 'token', id: bobCi.row.id },
      reason: 'false positive, checked by hand',
      expires_at: later(DAY),
    });
    t.equal((await api(alice, 'POST', `/api/v1/admin/waivers/${fw2.json.id}/approve`)).status, 200);
    t.equal((await install(bobCi.token)).code, 0, 'the waived token installs');
    const other = await install(bob);
    t.not(other.code, 0, "bob's other token is still refused");
    t.match(
      other.stderr,
      /npm notice hub: hubdep 1\.0\.0 is flagged malware \(hard_block\) by flag source scanner, MAL-1: exfiltrates tokens/,
    );

    // The exposure report marks the waived consumer (a token waiver counts for the token's user).
    await hub.hub.audit.flush();
    const exposure = (await api(hub.adminToken, 'GET', '/api/v1/admin/exposure?package=hubdep')).json.rows as Array<{
      consumer: string;
      exposure: string;
      version: string;
      waived: string | null;
    }>;
    t.match(
      exposure.find((r) => r.consumer === 'bob' && r.exposure === 'direct'),
      { version: '1.0.0', waived: new RegExp(`^waiver ${fw2.json.id} \\(token ${bobCi.row.id}, until `) },
      'bob is exposed, through a waiver',
    );

    // A short waiver for dave: it lets dave's request through, then ends by itself.
    const short = await api(alice, 'POST', '/api/v1/admin/waivers', {
      target: 'flag:scanner:MAL-1',
      registry: 'npm',
      package_name: 'hubdep',
      scope: { type: 'user', id: 'dave' },
      reason: 'one build',
      expires_at: later(8000),
    });
    t.equal((await api(carol, 'POST', `/api/v1/admin/waivers/${short.json.id}/approve`)).status, 200);
    const tarball = await fetch(`${registry}hubdep/-/hubdep-1.0.0.tgz`, {
      headers: { authorization: `Bearer ${dave}` },
    });
    await tarball.arrayBuffer();
    t.equal(tarball.status, 200, 'dave fetches the flagged tarball while the waiver runs');
    await until(Date.parse(short.json.expires_at) + 1100);
    const expired = await install(dave);
    t.not(expired.code, 0, 'expired: dave is refused again');
    t.match(expired.stderr, /flagged malware/);

    // The list says what each waiver is now.
    const list = await api(dave, 'GET', '/api/v1/admin/waivers');
    t.equal(list.status, 403, 'listing needs system:read');
    const all = (await api(alice, 'GET', '/api/v1/admin/waivers?package_name=hubdep')).json.waivers as Array<{
      id: number;
      state: string;
    }>;
    t.same(
      all.map((w) => [w.id, w.state]),
      [
        [short.json.id, 'expired'],
        [fw2.json.id, 'active'],
        [fw.json.id, 'rejected'],
        [id, 'revoked'],
      ],
    );
    t.same((await api(alice, 'GET', '/api/v1/admin/waivers?target=flag:scanner:MAL-1')).json.waivers.length, 3);

    // Each step is an audit row, naming the waiver.
    await hub.hub.audit.flush();
    const audit = await api(
      hub.adminToken,
      'GET',
      '/api/v1/admin/audit-log?action=waiver_request,waiver_approve,waiver_reject,waiver_revoke&limit=1000',
    );
    const steps = (
      audit.json.entries as Array<{ action: string; outcome: string; user_id: string; detail: string | null }>
    ).map((e) => `${e.action} ${e.outcome} ${e.user_id}${e.detail?.startsWith(`waiver ${id} `) ? ' #1' : ''}`);
    // And bob's download through the waiver names it.
    const downloads = await api(
      hub.adminToken,
      'GET',
      '/api/v1/admin/audit-log?action=download&user_id=bob&limit=1000',
    );
    t.ok(
      (downloads.json.entries as Array<{ package: string; detail: string | null }>).some(
        (e) => e.package === 'hubdep' && e.detail === `waiver ${id} lifts block ${block.json.id}`,
      ),
      "bob's download of hubdep names the waiver that let it through",
    );
    for (const s of [
      'waiver_request allowed alice #1',
      'waiver_approve denied alice #1',
      'waiver_approve allowed carol #1',
      'waiver_revoke allowed carol #1',
      'waiver_reject allowed alice',
      'waiver_request allowed carol',
    ])
      t.ok(steps.includes(s), `audit row: ${s}`);
  });
}
