import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** scripts/run-tests.mjs over the given files (absolute paths), as `npm test` runs them. */
function runTests(files: string[], jobs = 2) {
  const run = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const { runTests } = await import(${JSON.stringify(path.join(root, 'scripts/run-tests.mjs'))});
       await runTests(${JSON.stringify(files)}, { jobs: ${jobs} });`,
    ],
    { cwd: root, encoding: 'utf8' },
  );
  return { code: run.status, out: run.stdout };
}

t.test(
  'the test runner fails the suite on a failing, crashing or silent file, and sums what each file counted',
  async (t) => {
    const dir = t.testdir({
      'pass.test.mjs': `import t from 'tap';\nt.test('a', async (t) => { t.ok(1); t.ok(2); });\nt.test('b', { skip: 'missing client: nothing' }, async () => {});\n`,
      'fail.test.mjs': `import t from 'tap';\nt.test('c', async (t) => { t.equal(1, 2, 'one is two'); t.ok(1); });\n`,
      'crash.test.mjs': `throw new Error('boom at load');\n`,
      'silent.test.mjs': `process.exit(0);\n`,
    });
    const file = (name: string) => path.join(dir, name);

    const good = runTests([file('pass.test.mjs')]);
    t.equal(good.code, 0, 'a passing file: exit 0');
    t.match(good.out, /^ok 1 - .*pass\.test\.mjs/m);
    t.match(good.out, /^# \{ total: 3, pass: 2, skip: 1 \}$/m, 'the suite line sums the file’s own counts');
    t.match(good.out, /# SKIP missing client: nothing/, 'a skipped test is shown (.ci/run looks for missing clients)');

    const bad = runTests(
      ['pass', 'fail', 'crash', 'silent'].map((n) => file(`${n}.test.mjs`)),
      3,
    );
    t.equal(bad.code, 1, 'exit 1 when any file fails');
    for (const n of ['fail', 'crash', 'silent'])
      t.match(bad.out, new RegExp(`^not ok \\d+ - .*${n}\\.test\\.mjs`, 'm'), `${n}: not ok`);
    t.match(bad.out, /one is two/, 'a failing file’s TAP is printed');
    t.match(bad.out, /boom at load/, 'and a crash’s output');
    const summary = /^# \{ total: (\d+), pass: (\d+), fail: (\d+)/m.exec(bad.out);
    t.ok(summary, 'the suite line is there');
    t.same(
      summary?.slice(1).map(Number),
      [7, 3, 3],
      'the files’ own counts (3 and 2, one failed), and one failed test for each file that printed none',
    );
    t.ok(
      fs.existsSync(path.join(root, '.tap', 'test-results', `${file('fail.test.mjs')}.tap`)),
      'each file’s TAP is kept',
    );
  },
);
