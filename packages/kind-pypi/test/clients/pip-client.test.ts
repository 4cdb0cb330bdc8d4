/**
 * pip as people have it (issue 26): Debian 12's pip 23.0.1, which `/usr/bin/python3 -m venv` installs from
 * python3-venv's bundled wheel, reads hub's PEP 691 JSON index (it crashed on the `dist-info-metadata`
 * key PEP 714 retired); and with a version blocked (yanked on the page), `pip install name` resolves the
 * newest allowed one while `name==blocked` meets the 403, which pip prints with the block's reason (it
 * prints a yank reason only once resolution succeeds, which the 403 stops first). Then the same with the
 * pip of the python3 on PATH.
 */
import fs from 'node:fs';
import t from 'tap';
import { run, world } from '../pip-world.js';

const DEBIAN_PYTHON = '/usr/bin/python3';

/** Why Debian's pip cannot be had here, or false. Under CI=true such a skip fails the run (the lead's rule). */
async function debianPipMissing(): Promise<string | false> {
  if (!fs.existsSync(DEBIAN_PYTHON))
    return `missing client: Debian's python3 (${DEBIAN_PYTHON}); apt-get install -y python3-venv`;
  const r = await run(DEBIAN_PYTHON, ['-c', 'import venv, ensurepip'], process.env);
  return r.code === 0
    ? false
    : `missing client: python3-venv (${DEBIAN_PYTHON} -m venv has no ensurepip); apt-get install -y python3-venv`;
}

const pythons = [
  { label: "Debian's pip (23.0.1)", python: DEBIAN_PYTHON, skip: await debianPipMissing(), version: '23.0.1' },
  {
    label: 'the pip of python3 on PATH',
    python: 'python3',
    skip:
      (await run('python3', ['-c', 'import venv, ensurepip'], process.env)).code === 0
        ? false
        : 'missing client: python3 with venv on PATH',
    version: undefined,
  },
];

for (const p of pythons) {
  t.test(`${p.label} installs through hub's JSON index`, { skip: p.skip }, async (t) => {
    const w = await world(t, p.python);
    const v = await run(w.pip, ['--version'], w.env);
    if (p.version)
      t.match(
        v.stdout,
        new RegExp(`^pip ${p.version.replace(/\./g, '\\.')} `),
        `the venv's pip is ${p.version}: ${v.stdout.trim()}`,
      );
    const r = await run(w.pip, ['install', '--index-url', w.index, 'hub-demo>=1.0'], w.env);
    t.equal(r.code, 0, `pip install succeeded\n${r.stdout}\n${r.stderr}`);
    t.notMatch(r.stderr, /TypeError/, 'no TypeError from the JSON index');
    const got = await run(w.python, ['-c', 'import hub_demo, hubdep; print(hub_demo.VERSION, hubdep.VERSION)'], w.env);
    t.equal(got.stdout.trim(), '1.1.0 1.0.0');
    t.ok(w.s.index.count('/simple/hub-demo/') >= 1, 'the page came through hub');
  });

  t.test(
    `${p.label}: a blocked version is passed over by a range, and an exact pin meets the 403 with the reason`,
    { skip: p.skip },
    async (t) => {
      const w = await world(t, p.python);
      await w.s.hub.services.blocks.add({
        registry: 'py',
        package_name: 'hub-demo',
        version: '1.1',
        reason: 'CVE-2099-0002 bad build',
        by: 'security',
      });
      const r = await run(w.pip, ['install', '--index-url', w.index, 'hub-demo'], w.env);
      t.equal(r.code, 0, `pip install hub-demo succeeded\n${r.stdout}\n${r.stderr}`);
      const got = await run(w.python, ['-c', 'import hub_demo; print(hub_demo.VERSION)'], w.env);
      t.equal(got.stdout.trim(), '1.0.0', 'the newest allowed version (1.1.0 is blocked, 2.0.0 yanked upstream)');
      t.equal(w.s.files!.count('/hub_demo-1.1.0-py3-none-any.whl'), 0, 'the blocked wheel was never fetched');

      const pin = await run(
        w.pip,
        ['install', '--force-reinstall', '--no-deps', '--index-url', w.index, 'hub-demo==1.1.0'],
        w.env,
      );
      t.not(pin.code, 0, 'the exact pin fails');
      const out = pin.stdout + pin.stderr;
      t.match(
        out,
        /403 Client Error: Forbidden: hub-demo 1\.1 is blocked by security: CVE-2099-0002 bad build/,
        'and the 403 with the reason',
      );
    },
  );
}
