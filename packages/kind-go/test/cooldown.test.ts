import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { rawRequest } from '@hub/testkit';
import { setup } from './setup.js';
import { goEnvVars, goHome, noGo, run } from './go-env.js';

/** The fixture's example.com/Hub/demo v1.0.0 has Time 2024-01-01 and v1.1.0 2024-02-01: a cool-down reaching back to mid-January hides v1.1.0 only. */
const coolDown = () => Math.floor((Date.now() - Date.parse('2024-01-17T00:00:00Z')) / 1000);
const anon = { auth: { anonymous: ['source:read'] } };
const demo = 'example.com/!hub/demo';

t.test('min_release_age_secs: too-new versions leave @v/list and @latest, and their files are refused', async (t) => {
  const s = await setup(t, { config: anon, registry: { security: { min_release_age_secs: coolDown() } } });
  const list = await rawRequest(`${s.base}/${demo}/@v/list`);
  t.equal(list.status, 200);
  t.same(list.body.toString().trim().split('\n'), ['v1.0.0'], 'the list has only the old-enough version');
  const latest = await rawRequest(`${s.base}/${demo}/@latest`);
  t.equal(latest.status, 200);
  t.equal(latest.json().Version, 'v1.0.0', '@latest falls back to the newest old-enough version');

  for (const ext of ['zip', 'mod', 'info']) {
    const refused = await rawRequest(`${s.base}/${demo}/@v/v1.1.0.${ext}`);
    t.equal(refused.status, 403, `.${ext} of the too-new version`);
    t.match(refused.json(), {
      error: {
        code: 'package_blocked',
        message:
          /example\.com\/Hub\/demo v1\.1\.0 was published 2024-02-01T00:00:00\.000Z, within the registry's min_release_age_secs \(\d+\); it is served from 20\d\d-/,
      },
    });
  }
  t.equal(
    s.upstream.count((r) => r.url.endsWith('v1.1.0.zip') || r.url.endsWith('v1.1.0.mod')),
    0,
    'the too-new files were never fetched',
  );
  for (const ext of ['zip', 'mod', 'info'])
    t.equal((await rawRequest(`${s.base}/${demo}/@v/v1.0.0.${ext}`)).status, 200, `.${ext} of the old version`);
  t.equal(
    (await rawRequest(`${s.base}/github.com/pkg/errors/@v/v0.9.1.zip`)).status,
    200,
    'a pinned old version needs no list',
  );
});

t.test('a version whose .info has no Time cannot be shown old enough: unlisted and refused', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-go-notime-'));
  t.teardown(() => fs.rmSync(root, { recursive: true, force: true }));
  const dir = path.join(root, 'example.com', 'notime', '@v');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'list'), 'v1.0.0\n');
  fs.writeFileSync(path.join(dir, 'v1.0.0.info'), '{"Version":"v1.0.0"}');
  fs.writeFileSync(path.join(dir, 'v1.0.0.mod'), 'module example.com/notime\n');
  const s = await setup(t, { config: anon, registry: { security: { min_release_age_secs: 60 } }, fixtures: root });
  t.equal(
    (await rawRequest(`${s.base}/example.com/notime/@v/list`)).body.toString().trim(),
    '',
    'left out of the list',
  );
  const refused = await rawRequest(`${s.base}/example.com/notime/@v/v1.0.0.mod`);
  t.equal(refused.status, 403);
  t.match(refused.json().error.message, /has no publish time upstream.*min_release_age_secs \(60\)/);
});

t.test('without a cool-down every version is listed and served', async (t) => {
  const s = await setup(t, { config: anon, registry: { security: {} } });
  t.same((await rawRequest(`${s.base}/${demo}/@v/list`)).body.toString().trim().split('\n').sort(), [
    'v1.0.0',
    'v1.1.0',
  ]);
  t.equal((await rawRequest(`${s.base}/${demo}/@latest`)).json().Version, 'v1.1.0');
  t.equal((await rawRequest(`${s.base}/${demo}/@v/v1.1.0.zip`)).status, 200);
});

t.test(
  'go mod download resolves @latest to the old-enough version and fails on the too-new one',
  { skip: noGo },
  async (t) => {
    const s = await setup(t, { config: anon, registry: { security: { min_release_age_secs: coolDown() } } });
    const home = goHome(t, 'hub-go-cooldown-');
    const env = goEnvVars(home, s.base);
    const download = (mod: string) =>
      run('go', ['mod', 'download', '-json', mod], { cwd: home, env, timeout: 120_000 }).then(
        (r) => r.stdout,
        (e: { stdout: string }) => e.stdout,
      );
    const latest = JSON.parse(await download('example.com/Hub/demo@latest')) as { Version: string; Error?: string };
    t.equal(latest.Error, undefined);
    t.equal(latest.Version, 'v1.0.0', 'go resolved @latest to the old-enough version');
    const pinned = JSON.parse(await download('example.com/Hub/demo@v1.1.0')) as { Error?: string };
    t.match(pinned.Error, /403/, 'the too-new version fails to download');
  },
);
