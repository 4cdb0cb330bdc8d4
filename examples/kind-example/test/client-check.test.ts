/**
 * `hub check` for a third-party kind: the hub.toml's [plugins] load names the package, and the CLI
 * offers --static NAME with the kind's own coordinate option, help lines and checks. Runs the CLI in
 * process against a real hub with this kind over a loopback upstream.
 */
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { main, type Io } from '@hub/cli';
import { startFixtureUpstream, startTestHub } from '@hub/testkit';
import staticKind from '../src/index.js';

const root = t.testdir({
  up: { tool: { 'versions.json': JSON.stringify({ versions: ['1.0.0'] }), '1.0.0': { 'tool.txt': 'tool one' } } },
  hub: {},
  'hub.toml': '[plugins]\nload = ["@hub-example/kind-static"]\n',
});
const upstream = await startFixtureUpstream({ root: path.join(root, 'up') });
t.teardown(() => upstream.close());
const hub = await startTestHub({
  dir: path.join(root, 'hub'),
  plugins: [staticKind],
  registries: [{ name: 'tools', type: 'static', upstream: upstream.url }],
});
t.teardown(() => hub.close());
const token = await hub.token('ci', { roles: ['reader'] });
const CONFIG = path.join(root, 'hub.toml');

/** `hub check ...` in this process; the environment names the hub, the token and the hub.toml. */
async function check(args: string[], env: NodeJS.ProcessEnv = { HUB_CONFIG: CONFIG }) {
  let out = '';
  let err = '';
  const io: Io = {
    out: (s) => void (out += s),
    err: (s) => void (err += s),
    env: { HUB_URL: hub.url, HUB_TOKEN: token, ...env },
  };
  const code = await main(['check', ...args], io);
  return { code, out, err };
}

t.test('the kind named by [plugins] load is checked like a built-in one', async (t) => {
  const r = await check(['--static', 'tools']);
  t.equal(r.code, 0, r.out + r.err);
  t.same(r.out.split('\n').filter(Boolean), [
    'PASS tools http: GET /proxy/tools/tool/versions.json: 200, lists 1.0.0',
    'PASS tools tool: GET /proxy/tools/tool/1.0.0/tool.txt: 200 (8 B)',
    '2 checks: 2 passed, 0 failed, 0 skipped',
  ]);

  const missing = await check(['--static', 'tools', '--static-file', 'tool/9.9.9/tool.txt', '--json']);
  t.equal(missing.code, 1);
  t.match(JSON.parse(missing.out), {
    failed: 2,
    checks: [
      {
        registry: 'tools',
        kind: 'static',
        check: 'http',
        result: 'fail',
        detail: 'GET /proxy/tools/tool/versions.json: does not list 9.9.9',
      },
      { check: 'tool', result: 'fail', detail: /^GET \/proxy\/tools\/tool\/9\.9\.9\/tool\.txt: HTTP 404/ },
    ],
  });
});

t.test('help, usage errors and the config file', async (t) => {
  const help = await check(['--help']);
  t.equal(help.code, 0);
  t.match(
    help.out,
    /\n {2}static {7}http: <package>\/versions\.json lists the version\n {15}tool: <package>\/<version>\/<file> is 200\n/,
    'the hook carries its help lines',
  );
  t.match(help.out, /--static NAME, --static-file package\/version\/file\n {21}default tool\/1\.0\.0\/tool\.txt/);
  t.match(help.out, /--npm NAME, --npm-package name@version/, 'the default distribution is still offered');

  const bad = await check(['--static', 'tools', '--static-file', 'tool/1.0/x']);
  t.equal(bad.code, 2);
  t.match(bad.err, /--static-file must be a file such as tool\/1\.0\.0\/tool\.txt, not "tool\/1\.0\/x"/);

  const flag = await check(['--config', CONFIG, '--static', 'tools'], {});
  t.equal(flag.code, 0, '--config names the hub.toml too');
  const without = await check(['--static', 'tools'], {});
  t.equal(without.code, 2, 'without the hub.toml the kind is not loaded');
  t.match(without.err, /Unknown option '--static'/);

  const broken = path.join(root, 'broken.toml');
  fs.writeFileSync(broken, '[plugins]\nload = ["@hub-example/no-such-kind"]\n');
  const notFound = await check(['--static', 'tools'], { HUB_CONFIG: broken });
  t.equal(notFound.code, 1);
  t.match(notFound.err, /\[plugins\] load: cannot load "@hub-example\/no-such-kind"/);
});
