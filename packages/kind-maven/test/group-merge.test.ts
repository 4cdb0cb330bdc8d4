import crypto from 'node:crypto';
import fs from 'node:fs';
import t from 'tap';
import { groupPart, mergeContext, tableAsk } from '@hub/testkit';
import type { Reply, RouteMatch } from '@hub/runtime';
import maven from '../src/index.js';
import { listedVersions } from '../src/metadata.js';
import { UPSTREAM } from './setup.js';

const route = maven.routes.find((r) => r.id === 'metadata')!;
const merge = maven.group!.merge.metadata!;
const match = (path: string): RouteMatch => route.match(['maven2', ...path.split('/')])!;
const text = (r: Reply) => (r.body as Buffer).toString('utf8');

const CORE = 'org/hamcrest/hamcrest-core/maven-metadata.xml';
const core = fs.readFileSync(`${UPSTREAM}${CORE}`);
// A second member (a vendor's repository): a newer release, a SNAPSHOT, one version the first lists too, a later lastUpdated.
const vendor = Buffer.from(
  core
    .toString()
    .replace('<latest>1.3</latest>', '<latest>2.0-SNAPSHOT</latest>')
    .replace('<release>1.3</release>', '<release>1.4</release>')
    .replace(
      /<versions>[\s\S]*<\/versions>/,
      '<versions>\n      <version>1.3</version>\n      <version>1.4</version>\n      <version>2.0-SNAPSHOT</version>\n    </versions>',
    )
    .replace('20120709194934', '20240301000000'),
);

t.test(
  'artifact-level metadata: the versions of every member, latest and release chosen again, the latest lastUpdated',
  async (t) => {
    const { rc } = mergeContext();
    const res = await merge(rc, [groupPart('internal', core), groupPart('vendor', vendor)], match(CORE));
    t.equal(res.status, 200);
    const xml = text(res);
    t.same(
      listedVersions(xml),
      ['1.1', '1.2', '1.3.RC2', '1.3', '1.4', '2.0-SNAPSHOT'],
      'each version once, in Maven order',
    );
    t.match(xml, '<latest>2.0-SNAPSHOT</latest>');
    t.match(xml, '<release>1.4</release>');
    t.match(xml, '<lastUpdated>20240301000000</lastUpdated>');
    t.match(xml, '<groupId>org.hamcrest</groupId>');
    t.match(xml, '<artifactId>hamcrest-core</artifactId>');
  },
);

t.test('checksum files are computed over the merged bytes, which the merge asks the members for', async (t) => {
  const { rc } = mergeContext();
  const parts = [groupPart('internal', core), groupPart('vendor', vendor)];
  const doc = (await merge(rc, parts, match(CORE))).body as Buffer;
  for (const algorithm of ['sha1', 'md5', 'sha256', 'sha512'] as const) {
    const { ask, asked } = tableAsk({ [`maven2/${CORE}`]: parts });
    // The members' own checksums are what the request brought: not the merged document's.
    const own = [
      groupPart('internal', crypto.createHash(algorithm).update(core).digest('hex')),
      groupPart('vendor', 'x'),
    ];
    const res = await merge(rc, own, match(`${CORE}.${algorithm}`), ask);
    t.equal(text(res), crypto.createHash(algorithm).update(doc).digest('hex'), algorithm);
    t.same(asked, [`maven2/${CORE}`]);
  }
  await t.rejects(
    async () => merge(rc, [groupPart('a', 'x'), groupPart('b', 'y')], match(`${CORE}.sha1`)),
    { code: 'not_found' },
    'without GroupAsk: no checksum rather than a wrong one',
  );
});

t.test('version-level (SNAPSHOT) metadata comes from the first member that has it', async (t) => {
  const { rc } = mergeContext();
  const path = 'org/example/snap/1.0-SNAPSHOT/maven-metadata.xml';
  const snap = fs.readFileSync(`${UPSTREAM}${path}`);
  const other = Buffer.from(snap.toString().replace(/20240101/g, '20250101'));
  const res = await merge(rc, [groupPart('a', snap), groupPart('b', other)], match(path));
  t.same(res.body, snap);
});

t.test('a malformed member document is left out with a warning; all malformed is a 502', async (t) => {
  const { rc, warnings } = mergeContext();
  const html = '<!DOCTYPE html><html><body>sign in</body></html>';
  const res = await merge(rc, [groupPart('broken', html), groupPart('vendor', vendor)], match(CORE));
  t.same(listedVersions(text(res)), ['1.3', '1.4', '2.0-SNAPSHOT']);
  t.equal(warnings.length, 1);
  await t.rejects(async () => merge(rc, [groupPart('a', html), groupPart('b', '<metadata')], match(CORE)), {
    code: 'upstream_error',
  });
});

t.test('hostile size: two members with 20000 versions each merge in linear time', async (t) => {
  const { rc } = mergeContext();
  const doc = (from: number) =>
    `<?xml version="1.0"?><metadata><groupId>org.hamcrest</groupId><artifactId>hamcrest-core</artifactId><versioning><versions>${Array.from({ length: 20000 }, (_, i) => `<version>1.${from + i}</version>`).join('')}</versions></versioning></metadata>`;
  const res = await merge(rc, [groupPart('a', doc(0)), groupPart('b', doc(10000))], match(CORE));
  t.equal(listedVersions(text(res)).length, 30000);
});
