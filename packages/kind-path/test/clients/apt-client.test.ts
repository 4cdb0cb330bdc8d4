import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { DEB, fixture, get, setup } from '../setup.js';
import { missingClient } from '@hub/testkit';

const run = promisify(execFile);

async function haveApt(): Promise<boolean> {
  try {
    await run('apt-get', ['--version']);
    return true;
  } catch {
    return false;
  }
}

/** The real apt client, isolated from the machine's own configuration, against the fixture repository through hub. */
const skip = (await haveApt()) ? false : missingClient('apt-get');

t.test('apt-get update and apt-get download through hub, with a token in auth.conf', { skip }, async (t) => {
  const s = await setup(t, { config: {} }); // no anonymous read: apt must send the token
  const token = await s.token('apt', { roles: ['reader'] });
  t.equal((await get(`${s.base}/dists/stable/Release`)).status, 401, 'a token is required, so apt below must send it');
  const dir = mkdtempSync(join(tmpdir(), 'hub-apt-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const d of ['lists/partial', 'cache/archives/partial', 'etc', 'work'])
    mkdirSync(`${dir}/${d}`, { recursive: true });
  writeFileSync(`${dir}/etc/sources.list`, `deb [trusted=yes] ${s.base} stable main\n`);
  // Without the http:// prefix apt ignores credentials for plain http (packages/kind-path/README.md).
  writeFileSync(`${dir}/etc/auth.conf`, `machine ${s.base} login apt password ${token}\n`);
  writeFileSync(`${dir}/status`, '');
  const opts = [
    `-o=Dir::Etc::SourceList=${dir}/etc/sources.list`,
    '-o=Dir::Etc::SourceParts=/dev/null',
    `-o=Dir::State::Lists=${dir}/lists`,
    `-o=Dir::State::status=${dir}/status`,
    `-o=Dir::Cache=${dir}/cache`,
    `-o=Dir::Etc::netrc=${dir}/etc/auth.conf`,
    '-o=Dir::Etc::netrcparts=/dev/null',
    '-o=Dir::Etc::Preferences=/dev/null',
    '-o=Dir::Etc::PreferencesParts=/dev/null',
    '-o=Acquire::Languages=none',
    '-o=APT::Architecture=amd64',
    '-o=APT::Architectures=amd64',
    '-o=APT::Sandbox::User=root',
    '-o=Debug::NoLocking=1',
    '-o=Acquire::Retries=0',
  ];
  const update = await run('apt-get', [...opts, 'update'], { cwd: `${dir}/work` });
  t.notMatch(update.stdout + update.stderr, /^(E|W):/mu, 'no apt errors or warnings');
  // The fixture Release says Acquire-By-Hash: yes, so apt asks for Packages.gz by its SHA256 (an immutable artifact).
  t.equal(
    s.upstream.count('/dists/stable/main/binary-amd64/by-hash/SHA256/'),
    1,
    'the index came through hub, by hash',
  );
  t.equal(
    s.upstream.count((r) => r.url === '/dists/stable/Release'),
    1,
    'Release came through hub (after InRelease 404)',
  );
  await run('apt-get', [...opts, 'download', 'hubdemo'], { cwd: `${dir}/work` });
  t.same(readFileSync(`${dir}/work/hubdemo_1.0_all.deb`), fixture(DEB), 'apt downloaded the package byte for byte');
  t.comment(
    `upstream requests made for apt through hub: ${s.upstream.requests.map((r) => `${r.method} ${r.url}`).join(', ')}`,
  );
  t.equal(s.upstream.count(`/${DEB}`), 1, 'one upstream fetch of the package');
});
