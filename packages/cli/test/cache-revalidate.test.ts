/**
 * hub cache revalidate (issue 29, decision 0058) against a real hub (admin plugin + npm over the fixture
 * upstream), in process through main(): the text and --json answers, a refusal of an invalid upstream answer
 * (exit 1, the server's message), and bad usage (exit 2).
 */
import t from 'tap';
import { expectUsageErrors, json, startAdminHub } from './run-hub.js';

const s = await startAdminHub(t);
const packument = (versions: string[]) =>
  JSON.stringify({
    name: 'hubdemo',
    'dist-tags': { latest: versions.at(-1) },
    versions: Object.fromEntries(
      versions.map((v) => [
        v,
        { name: 'hubdemo', version: v, dist: { tarball: `${s.upstream.url}/hubdemo/-/hubdemo-${v}.tgz` } },
      ]),
    ),
  });
const served = async () =>
  Object.keys(
    (
      (await (
        await fetch(`${s.base}/hubdemo`, {
          headers: { accept: 'application/json', authorization: `Bearer ${s.adminToken}` },
        })
      ).json()) as { versions: object }
    ).versions,
  ).sort();

t.test('cache revalidate: what came and went, in text and JSON', async (t) => {
  t.same(await served(), ['1.0.0', '1.1.0'], 'cached from the fixture');
  s.upstream.fault(/^\/hubdemo$/, {
    type: 'status',
    status: 200,
    body: packument(['1.0.0', '1.2.0']),
    headers: { 'content-type': 'application/json' },
  });
  const text = await s.cli(['cache', 'revalidate', '--registry', 'npm', 'hubdemo@1.1.0']);
  t.equal(text.code, 0, text.stderr);
  const lines = text.stdout.trimEnd().split('\n');
  t.match(lines[0], /^revalidated npm hubdemo at \d{4}-\d\d-\d\dT[\d:.]+Z: 2 version\(s\) before, 2 now$/);
  t.same(lines.slice(1, 4), ['  added: 1.2.0', '  gone:  1.1.0', '  1.1.0: not listed upstream']);
  t.match(lines.slice(4), [
    /^ {2}packument:full:hubdemo: replaced$/,
    /^ {2}packument:corgi:hubdemo: (replaced|unchanged)$/,
  ]);
  t.same(await served(), ['1.0.0', '1.2.0'], 'the hub serves the new listing');

  const again = json(await s.cli(['cache', 'revalidate', '--registry', 'npm', '--package', 'hubdemo', '--json']));
  t.match(
    again,
    { registry: 'npm', package: 'hubdemo', before: ['1.0.0', '1.2.0'], after: ['1.0.0', '1.2.0'], added: [], gone: [] },
    '--json prints the answer',
  );
  s.upstream.clearFaults();
});

t.test('cache revalidate: an invalid upstream answer fails and replaces nothing', async (t) => {
  s.upstream.fault(/^\/hubdemo$/, { type: 'html200' });
  const failed = await s.cli(['cache', 'revalidate', '--registry', 'npm', 'hubdemo']);
  t.equal(failed.code, 1);
  t.match(
    failed.stderr,
    /^hub: no valid listing of hubdemo .*the cached copy stays.* \(HTTP 502, upstream_error, request_id \S+\)\n$/,
  );
  s.upstream.clearFaults();
  t.match(
    json(await s.cli(['cache', 'revalidate', '--registry', 'npm', '@hubtest/scoped@1.0.0', '--json'])),
    { package: '@hubtest/scoped', version: '1.0.0', listed: true },
    'a scoped name splits at its last @',
  );
});

t.test('cache revalidate: usage', async (t) => {
  await expectUsageErrors(
    t,
    [
      [['cache', 'revalidate', 'hubdemo'], /--registry is required/, 'cache revalidate'],
      [['cache', 'revalidate', '--registry', 'npm'], /--package is required/, 'cache revalidate'],
      [['cache', 'revalidate', '--registry', 'npm', 'a', 'b'], /unexpected argument "b"/, 'cache revalidate'],
    ],
    { HUB_URL: s.url, HUB_TOKEN: s.adminToken },
  );
  const help = await s.cli(['cache', 'revalidate', '--help']);
  t.match(help.stdout, /^Usage: hub cache revalidate --registry R PACKAGE\[@VERSION\]/);
});
