import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import rpm from '../../src/kinds/rpm.js';
import { get, setup } from '../setup.js';
import { missingClient } from '@hub/testkit';

const run = promisify(execFile);

/** A dnf repository made with createrepo_c from a package built with rpmbuild (README, "Test fixtures"). */
const RPMREPO = fileURLToPath(new URL('../../../test/fixtures/rpmrepo/', import.meta.url));
const PKG = 'Packages/hubdemo-1.0.0-1.noarch.rpm';

async function skipReason(): Promise<string | false> {
  try {
    await run('dnf', ['--version']);
    return false;
  } catch {
    return missingClient('dnf', 'apt-get install dnf');
  }
}

t.test(
  'dnf makecache and dnf install --downloadonly through hub, with username/password in the .repo file',
  { skip: await skipReason() },
  async (t) => {
    const s = await setup(t, { kind: rpm, root: RPMREPO, config: {} });
    const token = await s.token('dnf', { roles: ['reader'] });
    t.equal((await get(`${s.base}/repodata/repomd.xml`)).status, 401, 'a token is required, so dnf below must send it');
    const dir = mkdtempSync(join(tmpdir(), 'hub-dnf-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    for (const d of ['root', 'cache', 'repos', 'out']) mkdirSync(`${dir}/${d}`, { recursive: true });
    writeFileSync(
      `${dir}/repos/hub.repo`,
      `[hubrepo]\nname=hub\nbaseurl=${s.base}\nusername=dnf\npassword=${token}\ngpgcheck=0\nrepo_gpgcheck=0\n`,
    );
    writeFileSync(
      `${dir}/dnf.conf`,
      `[main]\ngpgcheck=0\ninstallonly_limit=3\nclean_requirements_on_remove=True\nskip_if_unavailable=False\n`,
    );
    const opts = [
      '-c',
      `${dir}/dnf.conf`,
      `--installroot=${dir}/root`,
      `--setopt=reposdir=${dir}/repos`,
      `--setopt=cachedir=${dir}/cache`,
      '--setopt=logdir=' + dir,
      '--releasever=1',
      '--disableplugin=*',
      '-y',
    ];
    const cache = await run('dnf', [...opts, 'makecache']);
    t.notMatch(cache.stdout + cache.stderr, /Error|Failed/u, 'no dnf errors');
    await run('dnf', [...opts, 'install', '--downloadonly', `--destdir=${dir}/out`, 'hubdemo']);
    t.same(
      readFileSync(`${dir}/out/hubdemo-1.0.0-1.noarch.rpm`),
      readFileSync(`${RPMREPO}${PKG}`),
      'dnf downloaded the package byte for byte',
    );
    t.comment(
      `upstream requests made for dnf through hub: ${s.upstream.requests.map((r) => `${r.method} ${r.url}`).join(', ')}`,
    );
    t.equal(s.upstream.count('/repodata/repomd.xml'), 1, 'repomd.xml came through hub');
    t.ok(
      s.upstream.count(/^\/repodata\/[0-9a-f]{64}-primary\.xml\.gz$/u) === 1,
      'the hashed primary metadata came through hub (its digest checked)',
    );
    t.equal(s.upstream.count(`/${PKG}`), 1, 'one upstream fetch of the package');
    t.notOk(
      s.upstream.requests.some((r) => r.headers.authorization),
      'the client token never reaches the upstream',
    );
  },
);
