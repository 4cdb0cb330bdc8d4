import fs from 'node:fs';
import t from 'tap';
import { hubRequests, mvn, mvnMissing, project, RANGE_POM, total } from '../mvn.js';
import { setup } from '../setup.js';

/**
 * The real mvn against the committed fixtures only (no ~/.m2 needed): a parent POM given as a version
 * range makes mvn read hub's maven-metadata.xml and, with -C (strict checksums), insist on its .sha1.
 */
t.test(
  'mvn -C resolves a version range through maven-metadata.xml; an unlisted version is not chosen',
  { skip: mvnMissing ?? false, timeout: 120_000 },
  async (t) => {
    const s = await setup(t);
    const token = await s.token('builder', { roles: ['reader'] });
    const validate = () => project(t, s.repo, { kind: 'header', token }, { 'pom.xml': RANGE_POM }, ['-C', 'validate']);

    const before = validate();
    if (!(await mvn(t, before))) return;
    t.ok(fs.existsSync(before.repo('org/example/hubparent/2.0/hubparent-2.0.pom')), 'the highest listed version, 2.0');

    await s.hub.services.unlisting.add(
      { registry: 'maven', package_name: 'org.example:hubparent', version: '2.0' },
      'admin',
    );
    const after = validate();
    const out = await mvn(t, after);
    if (!out) return;
    t.ok(fs.existsSync(after.repo('org/example/hubparent/1.0/hubparent-1.0.pom')), 'with 2.0 unlisted: 1.0');
    t.notOk(fs.existsSync(after.repo('org/example/hubparent/2.0')), '2.0 was never asked for');
    t.notMatch(out.stdout, /[Cc]hecksum/, "strict checksums (-C) accepted hub's rewritten metadata");
    const byStatus = await hubRequests(s);
    t.comment(`hub answered ${total(byStatus)} requests over both runs: ${JSON.stringify(byStatus)}`);
    t.equal(s.upstream.count('/org/example/hubparent/maven-metadata.xml'), 1, 'the metadata left the upstream once');
  },
);

t.test(
  'a blocked version: mvn fails, and its error names who blocked it (from the status line)',
  { skip: mvnMissing ?? false, timeout: 120_000 },
  async (t) => {
    const s = await setup(t);
    const token = await s.token('builder', { roles: ['reader'] });
    await s.hub.services.blocks.add({
      registry: 'maven',
      package_name: 'org.example:hubparent',
      version: '2.0',
      reason: 'CVE-2099-0001',
      by: 'secteam',
    });
    const err = await project(t, s.repo, { kind: 'header', token }, { 'pom.xml': RANGE_POM }, ['validate'])
      .run()
      .then(
        () => null,
        (e: { stdout?: string }) => e,
      );
    t.ok(err, 'mvn fails: 2.0 is the highest version in range, and it is blocked');
    t.match(
      err?.stdout ?? '',
      /org\.example:hubparent 2\.0 is blocked by secteam: CVE-2099-0001/,
      "mvn's output carries hub's reason",
    );
  },
);
