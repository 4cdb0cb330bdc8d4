/**
 * pip through hub, for real (and, last, pip installing a project published to a local registry): a fresh venv, `--index-url` with the token as the Basic password, a fixture
 * index whose pages link to a separate files host, and distributions built by Python at test time
 * (fixtures/build_dists.py: wheels with real RECORD hashes, a PEP 517 sdist that pip builds offline).
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { noCurl, start, upload, writeDist } from '../publish-setup.js';
import { wheel } from '../simple-fixture.js';
import { pythonMissing, run, world } from '../pip-world.js';

const skip = pythonMissing();

t.test('pip install of a project with a dependency; a range skips the yanked version', { skip }, async (t) => {
  const w = await world(t);
  const r = await run(w.pip, ['install', '--index-url', w.index, 'Hub_Demo>=1.0'], w.env);
  t.equal(r.code, 0, `pip install succeeded\n${r.stdout}\n${r.stderr}`);
  const v = await run(w.python, ['-c', 'import hub_demo, hubdep; print(hub_demo.VERSION, hubdep.VERSION)'], w.env);
  t.equal(
    v.stdout.trim(),
    '1.1.0 1.0.0',
    'hub_demo 1.1.0 (not the yanked 2.0.0) and its dependency hubdep 1.0.0 are installed',
  );
  t.ok(w.s.files!.count('/hub_demo-1.1.0-py3-none-any.whl') >= 1, 'the wheel came from the files host the page named');
  t.equal(w.s.files!.count('/hub_demo-2.0.0-py3-none-any.whl'), 0, 'the yanked wheel was never fetched');
  t.notOk((r.stdout + r.stderr).includes(w.s.files!.url), 'pip never saw the files host');
});

t.test('pip download of an sdist, byte for byte', { skip }, async (t) => {
  const w = await world(t);
  const dest = path.join(w.dir, 'dl');
  // pip prepares the sdist's metadata with the PEP 517 backend the sdist carries (no build tools fetched).
  const r = await run(
    w.pip,
    ['download', '--no-deps', '--no-binary', ':all:', '--dest', dest, '--index-url', w.index, 'hubdep==1.0.0'],
    w.env,
  );
  t.equal(r.code, 0, `pip download succeeded\n${r.stdout}\n${r.stderr}`);
  t.same(fs.readdirSync(dest), ['hubdep-1.0.0.tar.gz'], 'the sdist, not the wheel');
  t.ok(
    fs
      .readFileSync(path.join(dest, 'hubdep-1.0.0.tar.gz'))
      .equals(fs.readFileSync(path.join(w.built, 'hubdep-1.0.0.tar.gz'))),
    'the bytes build_dists.py wrote',
  );
});

t.test('a blocked version is refused and pip prints the reason', { skip }, async (t) => {
  const w = await world(t);
  await w.s.hub.services.blocks.add({
    registry: 'py',
    package_name: 'hub-demo',
    version: '1.1.0',
    reason: 'CVE-2099-0001 remote code execution',
    by: 'admin',
  });
  const r = await run(w.pip, ['install', '--index-url', w.index, 'hub-demo==1.1.0'], w.env);
  t.not(r.code, 0, 'pip install fails');
  // pip prints the status line, whose reason phrase hub fills with the error message.
  t.match(
    r.stderr,
    /403 Client Error: Forbidden: hub-demo 1\.1\.0 .*CVE-2099-0001 remote code execution/,
    'pip shows the 403 and the reason the version is blocked',
  );
  t.equal(w.s.files!.count('/hub_demo-1.1.0-py3-none-any.whl'), 0, 'the upstream was not asked for the blocked file');
});

t.test('pip installs what was published', { skip: skip || noCurl }, async (t) => {
  const s = await start(t, 'local');
  const w = wheel('hub_pub', '1.0.0');
  t.equal((await upload(s, writeDist(s, w.filename, w.body), { name: 'hub-pub', version: '1.0.0' })).status, 200);
  const venv = path.join(s.dir, 'venv');
  execFileSync('python3', ['-m', 'venv', venv]);
  const u = new URL(`${s.base}/simple/`);
  u.username = 'x';
  u.password = s.reader;
  const env = {
    PATH: process.env.PATH,
    HOME: s.dir,
    PIP_NO_CACHE_DIR: '1',
    PIP_CONFIG_FILE: '/dev/null',
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
  };
  const pip = await new Promise<{ code: number; out: string }>((resolve) =>
    execFile(
      path.join(venv, 'bin', 'pip'),
      ['install', '--index-url', u.href, 'hub-pub'],
      { env },
      (err, stdout, stderr) => resolve({ code: err ? 1 : 0, out: `${stdout}${stderr}` }),
    ),
  );
  t.equal(pip.code, 0, pip.out);
  t.equal(
    execFileSync(path.join(venv, 'bin', 'python'), ['-c', 'import hub_pub; print(hub_pub.VERSION)'], { env })
      .toString()
      .trim(),
    '1.0.0',
  );
});
