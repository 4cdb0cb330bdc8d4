/**
 * hub sbom against a real hub (@hub/admin, npm over the npm fixture upstream), in-process through main():
 * the SBOM of a held version in both formats, to standard output and to a file, the inventory, and
 * the usage errors.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import admin from '@hub/admin';
import npm from '@hub/kind-npm';
import { npmFixtureHandler, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { expectUsageErrors, json, runHub } from './run-hub.js';

const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));
const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
t.teardown(() => upstream.close());
const s = await startTestHub({
  dir: t.testdir(),
  plugins: [npm, admin],
  registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
});
t.teardown(() => s.close());
const env = { HUB_URL: s.url, HUB_TOKEN: s.adminToken };
const cli = (args: string[]) => runHub(args, env);

const reader = await s.token('ci', { roles: ['reader'] });
const res = await fetch(`${s.url}/proxy/npm/hubdemo/1.1.0/tarball`, { headers: { authorization: `Bearer ${reader}` } });
await res.arrayBuffer();
await s.hub.artifacts.idle();

t.test('hub sbom of a version: CycloneDX by default, SPDX with --format, a file with --output', async (t) => {
  const cdx = await cli(['sbom', '--registry', 'npm', '--package', 'hubdemo', '--version', '1.1.0']);
  t.equal(cdx.code, 0, cdx.stderr);
  t.match(json(cdx), {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    metadata: { component: { purl: 'pkg:npm/hubdemo@1.1.0' } },
  });
  const spdx = await cli(['sbom', 'npm', 'hubdemo', '1.1.0', '--format', 'spdx']);
  t.equal(spdx.code, 0, spdx.stderr);
  t.match(json(spdx), { spdxVersion: 'SPDX-2.3' });
  const file = join(t.testdir(), 'hubdemo.spdx.json');
  const saved = await cli(['sbom', 'npm', 'hubdemo', '1.1.0', '--format', 'spdx', '--output', file]);
  t.equal(saved.code, 0, saved.stderr);
  t.equal(saved.stdout, '', 'nothing on standard output');
  t.match(saved.stderr, /^wrote \d+ bytes of JSON to .*hubdemo\.spdx\.json\n$/);
  t.match(JSON.parse(readFileSync(file, 'utf8')), {
    spdxVersion: 'SPDX-2.3',
    packages: [{ name: 'hubdemo', versionInfo: '1.1.0' }],
  });
  const missing = await cli(['sbom', 'npm', 'hubdemo', '1.0.0', '--output', join(t.testdir(), 'none.json')]);
  t.equal(missing.code, 1, 'a version hub does not hold: exit 1');
  t.match(missing.stderr, /404|holds no file/);
  t.notOk(existsSync(join(t.testdir(), 'none.json')), 'and no file written');
});

t.test('hub sbom without a version: the inventory, who pulled what', async (t) => {
  const inv = await cli(['sbom', '--registry', 'npm']);
  t.equal(inv.code, 0, inv.stderr);
  t.match(json(inv), {
    registries: ['npm'],
    packages: [{ name: 'hubdemo', version: '1.1.0', pulled_by: [{ user_id: 'ci', downloads: 1 }] }],
  });
  const cdx = await cli(['sbom', '--format', 'cyclonedx']);
  t.match(json(cdx), { bomFormat: 'CycloneDX', components: [{ purl: 'pkg:npm/hubdemo@1.1.0' }] });
});

t.test('hub sbom --help and usage errors', async (t) => {
  const help = await cli(['sbom', '--help']);
  t.equal(help.code, 0);
  t.match(help.stdout, /Usage: hub sbom/);
  t.match(help.stdout, /--format/);
  t.match(help.stdout, /--output/);
  await expectUsageErrors(
    t,
    [
      [['sbom', '--package', 'hubdemo', '--version', '1.1.0'], /--package needs --registry/, 'sbom'],
      [['sbom', 'npm', 'hubdemo'], /go together/, 'sbom'],
      [['sbom', 'npm', 'hubdemo', '1.1.0', '--format', 'xml'], /--format must be one of/, 'sbom'],
      [['sbom', 'npm', 'hubdemo', '1.1.0', '--format', 'json'], /cyclonedx or spdx/, 'sbom'],
    ],
    env,
  );
});
