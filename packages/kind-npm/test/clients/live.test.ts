import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { startTestHub } from '@hub/testkit';
import npm from '../../src/index.js';

const run = promisify(execFile);

/**
 * The live tier: hub in front of the npm registry this machine's npm is configured with (read from
 * `npm config get registry`, never written down), installing one small real package.
 */
const upstream = (await run('npm', ['config', 'get', 'registry'])).stdout.trim().replace(/\/$/, '');
const reachable = await fetch(`${upstream}/is-number`, { signal: AbortSignal.timeout(10_000) }).then(
  (r) => r.ok,
  () => false,
);

t.test(
  'live: npm install of a real package through hub',
  { skip: reachable ? false : 'the configured npm registry cannot be reached from here' },
  async (t) => {
    const dir = t.testdir({
      app: { 'package.json': '{"name":"app","version":"1.0.0","private":true}' },
      cache: {},
      hub: {},
    });
    const hub = await startTestHub({
      dir: path.join(dir, 'hub'),
      plugins: [npm],
      registries: [{ name: 'npm', type: 'npm', upstream }],
    });
    t.teardown(() => hub.close());
    const token = await hub.token('ci', { roles: ['reader'] });
    const registry = `${hub.url}/proxy/npm/`;
    fs.writeFileSync(
      path.join(dir, 'npmrc'),
      `registry=${registry}\n${registry.replace(/^https?:/, '')}:_authToken=${token}\n`,
    );
    await run('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', 'is-number@7.0.0'], {
      cwd: path.join(dir, 'app'),
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        npm_config_userconfig: path.join(dir, 'npmrc'),
        npm_config_cache: path.join(dir, 'cache'),
      },
      timeout: 120_000,
    });
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'app/node_modules/is-number/package.json'), 'utf8')) as {
      version: string;
    };
    t.equal(pkg.version, '7.0.0');
    await hub.hub.artifacts.idle(); // the row is written just after the body was sent
    const rows = (await hub.hub.db('artifacts').select('package_name', 'version')) as Array<{
      package_name: string;
      version: string;
    }>;
    t.same(rows, [{ package_name: 'is-number', version: '7.0.0' }], 'the tarball is cached in hub');
  },
);
