import fs from 'node:fs';
import { Readable } from 'node:stream';
import t from 'tap';
import { isArchiveError } from '@hub/runtime';
import maven from '../src/index.js';
import { FIXTURES, UPSTREAM } from './setup.js';

const limits = { maxBytes: 1024 * 1024, maxEntries: 1000 };
const extract = (file: string, l = limits) => maven.sbom!.extract(fs.createReadStream(file, { highWaterMark: 512 }), l);

t.test('applies to POMs only', async (t) => {
  t.ok(maven.sbom!.appliesTo('junit/junit/4.13.2/junit-4.13.2.pom'));
  t.notOk(maven.sbom!.appliesTo('junit/junit/4.13.2/junit-4.13.2.jar'));
  t.notOk(maven.sbom!.appliesTo('junit/junit/4.13.2/junit-4.13.2.pom.sha1'));
});

t.test("junit 4.13.2's real POM: its two dependencies, not the plugins' ones", async (t) => {
  const deps = await extract(`${UPSTREAM}junit/junit/4.13.2/junit-4.13.2.pom`);
  t.same(deps, [
    { name: 'org.hamcrest:hamcrest-core', range: '1.3', scope: 'runtime' },
    { name: 'org.hamcrest:hamcrest-library', range: '1.3', scope: 'dev' },
  ]);
});

t.test('every scope, properties, and what is not a dependency', async (t) => {
  const deps = await extract(`${FIXTURES}poms/scopes.pom`);
  t.same(deps, [
    { name: 'org.example:compile-dep', range: '2.1', scope: 'runtime' },
    { name: 'org.example:runtime-dep', range: '1.0', scope: 'runtime' },
    { name: 'org.example:test-dep', range: '[1.0,2.0)', scope: 'dev' },
    { name: 'org.example:provided-dep', range: '3', scope: 'peer' },
    { name: 'org.example:system-dep', range: '4', scope: 'build' },
    { name: 'org.example:optional-dep', range: '5', scope: 'optional' },
    { name: 'org.example:sibling', range: '7', scope: 'runtime' },
    { name: 'org.example:managed', range: '', scope: 'runtime' },
    { name: 'org.example:amp&dep', range: '6', scope: 'runtime' },
  ]);
  t.notOk(
    deps.some((d) => d.name.includes('not-a-dependency')),
    'dependencyManagement, plugin and profile dependencies are left out',
  );
});

t.test('entities are never expanded: a DOCTYPE is refused', async (t) => {
  await t.rejects(extract(`${FIXTURES}poms/entities.pom`), /DOCTYPE/);
});

t.test('caps: bytes and entries', async (t) => {
  const pom = `${UPSTREAM}junit/junit/4.13.2/junit-4.13.2.pom`;
  const big = await extract(pom, { maxBytes: 1000, maxEntries: 1000 }).catch((e: unknown) => e);
  t.ok(isArchiveError(big, 'ARCHIVE_LIMIT'), 'the size cap');
  const many = await extract(`${FIXTURES}poms/scopes.pom`, { maxBytes: 1 << 20, maxEntries: 3 }).catch(
    (e: unknown) => e,
  );
  t.ok(isArchiveError(many, 'ARCHIVE_LIMIT'), 'the entry cap');
  // A stream that never ends is not read past the cap.
  let produced = 0;
  const endless = new Readable({
    read() {
      produced += 4096;
      this.push(Buffer.alloc(4096, 0x20));
    },
  });
  await t.rejects(maven.sbom!.extract(endless, { maxBytes: 64 * 1024, maxEntries: 10 }));
  t.ok(produced < 256 * 1024, `stopped reading (${produced} bytes)`);
});
