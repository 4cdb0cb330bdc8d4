import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import pacman from '../../src/kinds/pacman.js';
import { get, setup } from '../setup.js';
import { missingClient } from '@hub/testkit';

const run = promisify(execFile);

/**
 * A pacman repository made with repo-add from a hand-built package (README, "Test fixtures"):
 * hubrepo/os/x86_64/{hubrepo.db, hubrepo.files, hubdemo-1.0.0-1-any.pkg.tar.zst}.
 */
const PACREPO = fileURLToPath(new URL('../../../test/fixtures/pacrepo/', import.meta.url));
const PKG = 'hubrepo/os/x86_64/hubdemo-1.0.0-1-any.pkg.tar.zst';

async function skipReason(): Promise<string | false> {
  try {
    await run('pacman', ['--version']);
  } catch {
    return missingClient('pacman', 'apt-get install pacman-package-manager');
  }
  // pacman -Sy refuses to run unprivileged, even against a private --root and --dbpath.
  return process.getuid?.() === 0 ? false : 'pacman -Sy needs root';
}

t.test(
  'pacman -Sy and -Sw through hub, with the token as userinfo in Server=',
  { skip: await skipReason() },
  async (t) => {
    const s = await setup(t, { kind: pacman, root: PACREPO, config: {} });
    const token = await s.token('pacman', { roles: ['reader'] });
    t.equal(
      (await get(`${s.base}/hubrepo/os/x86_64/hubrepo.db`)).status,
      401,
      'a token is required, so pacman below must send it',
    );
    const dir = mkdtempSync(join(tmpdir(), 'hub-pacman-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    for (const d of ['root', 'db', 'cache', 'gnupg']) mkdirSync(`${dir}/${d}`, { recursive: true });
    const server = s.base.replace('http://', `http://pacman:${token}@`);
    writeFileSync(
      `${dir}/pacman.conf`,
      `[options]\nArchitecture = x86_64\nSigLevel = Never\n\n[hubrepo]\nServer = ${server}/$repo/os/$arch\n`,
    );
    const opts = [
      '--config',
      `${dir}/pacman.conf`,
      '--root',
      `${dir}/root`,
      '--dbpath',
      `${dir}/db`,
      '--cachedir',
      `${dir}/cache`,
      '--gpgdir',
      `${dir}/gnupg`,
      '--logfile',
      `${dir}/pacman.log`,
      '--noconfirm',
      '--noprogressbar',
    ];
    const sync = await run('pacman', [...opts, '-Sy']);
    t.notMatch(sync.stdout + sync.stderr, /error:/u, 'no pacman errors');
    t.same(
      readFileSync(`${dir}/db/sync/hubrepo.db`),
      readFileSync(`${PACREPO}hubrepo/os/x86_64/hubrepo.db`),
      'the repo database came through hub',
    );
    await run('pacman', [...opts, '-Sy']);
    t.equal(
      s.upstream.count('/hubrepo/os/x86_64/hubrepo.db'),
      1,
      'a second -Sy within metadata_ttl_secs is answered without asking the upstream',
    );
    await run('pacman', [...opts, '-Sw', 'hubdemo']);
    t.same(
      readFileSync(`${dir}/cache/hubdemo-1.0.0-1-any.pkg.tar.zst`),
      readFileSync(`${PACREPO}${PKG}`),
      'pacman downloaded the package byte for byte',
    );
    t.comment(
      `upstream requests made for pacman through hub: ${s.upstream.requests.map((r) => `${r.method} ${r.url}`).join(', ')}`,
    );
    t.equal(s.upstream.count(`/${PKG}`), 1, 'one upstream fetch of the package');
    t.notOk(
      s.upstream.requests.some((r) => r.headers.authorization),
      'the client token never reaches the upstream',
    );
  },
);
