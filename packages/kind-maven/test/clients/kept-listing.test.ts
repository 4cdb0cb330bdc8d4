/**
 * Kept listings (issue 29): once the upstream deleted an artifact and the upstream audit has it as disappeared,
 * hub serves its last good maven-metadata.xml with only the versions it holds, so mvn resolving a version range
 * picks a held version. The first run shows the range fails without the audit.
 */
import fs from 'node:fs';
import t from 'tap';
import { disappearedVersions, KEPT_AUDIT_CONFIG, revalidatePackage, sweepUpstream } from '@hub/testkit';
import { mvn, mvnMissing, project, RANGE_POM } from '../mvn.js';
import { setup } from '../setup.js';

t.test(
  'mvn with a version range after the upstream deleted the artifact',
  { skip: mvnMissing ?? false, timeout: 240_000 },
  async (t) => {
    const s = await setup(t, { config: KEPT_AUDIT_CONFIG, registry: { metadata_ttl_secs: 0 } });
    const token = await s.token('builder', { roles: ['reader'] });
    const auth = { authorization: `Bearer ${token}` };
    const dir = `${s.repo}/org/example/hubparent`;
    // hub lists 1.0 and 2.0 and holds 1.0's POM (and its checksum) only.
    t.match(
      await (await fetch(`${dir}/maven-metadata.xml`, { headers: auth })).text(),
      /<version>2\.0<\/version>/,
      'the listing names 2.0',
    );
    for (const f of ['1.0/hubparent-1.0.pom', '1.0/hubparent-1.0.pom.sha1'])
      t.equal((await fetch(`${dir}/${f}`, { headers: auth })).status, 200, `${f} held`);
    await s.hub.artifacts.idle();

    const fresh = await revalidatePackage(s, 'maven', 'org.example:hubparent');
    t.match(
      fresh,
      { before: ['1.0', '2.0'], after: ['1.0', '2.0'], added: [], gone: [] },
      'revalidation reads the same versions from the listing it refetched',
    );
    s.upstream.fault(/^\/org\/example\/hubparent\//, { type: 'status', status: 404, body: 'not found' });
    const validate = () => project(t, s.repo, { kind: 'header', token }, { 'pom.xml': RANGE_POM }, ['-C', 'validate']);
    const refused = await validate()
      .run()
      .then(
        () => 'ok',
        () => 'failed',
      );
    t.equal(refused, 'failed', 'without the audit the range finds nothing');

    const swept = await sweepUpstream(s, 'maven');
    t.match(swept, { outcome: 'ok', disappeared: 1 }, 'the sweep confirms 1.0 gone');
    t.same(await disappearedVersions(s, 'maven'), ['org.example:hubparent@1.0']);
    const kept = validate();
    if (!(await mvn(t, kept))) return;
    t.ok(
      fs.existsSync(kept.repo('org/example/hubparent/1.0/hubparent-1.0.pom')),
      'the range resolves to the held 1.0 from the kept listing',
    );
    t.notOk(fs.existsSync(kept.repo('org/example/hubparent/2.0')), '2.0, not held, is not offered');
    const gone = await revalidatePackage(s, 'maven', 'org.example:hubparent');
    t.match(gone, { after: [], gone: fresh.after }, 'revalidating the deleted package: every version gone');
    t.ok(
      gone.documents.every((d) => d.outcome === 'not_found'),
      'each listing document answered 404, and its kept copy stays',
    );
  },
);
