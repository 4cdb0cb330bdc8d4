import t from 'tap';
import { storeTiers, type TestHub } from '@hub/testkit';
import { packagePage, provenanceHub } from './provenance-upstream.js';

const WIDGET = { sourceRepository: 'https://forge.example/acme/widget' };
const FORK = { sourceRepository: 'https://forge.example/mallory/widget' };
const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

const fetchTarball = async (hub: TestHub, v: string) => {
  const res = await fetch(`${hub.url}/proxy/npm/widget/-/widget-${v}.tgz`, {
    headers: { authorization: `Bearer ${hub.adminToken}` },
  });
  await res.arrayBuffer();
  return res.status;
};

for (const tier of tiers) {
  t.test(
    `${tier.name}: results are stored once per version, and a changed source repository is found across versions (issue 30)`,
    async (t) => {
      const db = await tier.database(t, t.testdir());
      // A requiring rule checks before the fetch, so each check has finished when its request is answered.
      const { hub, upstream } = await provenanceHub(
        t,
        [{ version: '1.0.0', identity: WIDGET }, { version: '1.1.0', identity: FORK }, { version: '1.2.0' }],
        { rules: [{ registry: 'npm', packages: ['widget'] }] },
        db,
      );
      t.equal(await fetchTarball(hub, '1.0.0'), 200);
      t.equal(await fetchTarball(hub, '1.0.0'), 200, 'a warm hit');
      t.equal(
        upstream.count('/-/npm/v1/attestations/widget@1.0.0'),
        1,
        'checked once: the warm hit read the stored result',
      );
      t.equal(
        upstream.count(/^\/widget$/),
        1,
        'one packument request: the check and the fetch share it through the metadata cache',
      );
      t.equal(await fetchTarball(hub, '1.1.0'), 200);
      t.equal(await fetchTarball(hub, '1.2.0'), 403);
      const page = await packagePage(hub);
      t.match(page.get('1.0.0')?.provenance, { status: 'verified', source_changed: false });
      t.match(page.get('1.1.0')?.provenance, {
        status: 'verified',
        source_repository: FORK.sourceRepository,
        source_changed: true,
      });
      t.match(page.get('1.2.0')?.provenance, { status: 'absent' });
      const events = (await (
        await fetch(`${hub.url}/api/v1/admin/events?type=provenance_changed`, {
          headers: { authorization: `Bearer ${hub.adminToken}` },
        })
      ).json()) as { events: unknown[] };
      t.match(events.events, [
        { data: { version: '1.1.0', previous_version: '1.0.0', source_repository: 'forge.example/mallory/widget' } },
      ]);
      const metrics = await (await fetch(`${hub.url}/metrics`)).text();
      t.match(metrics, /hub_provenance_checks_total\{registry="npm",result="verified"\} 2/);
      t.match(metrics, /hub_provenance_checks_total\{registry="npm",result="absent"\} 1/);
      t.match(metrics, /hub_provenance_denials_total\{registry="npm"\} 1/);
    },
  );
}
