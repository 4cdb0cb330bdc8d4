import path from 'node:path';
import { Writable } from 'node:stream';
import t from 'tap';
import { startTestHub } from '@hub/testkit';
import { sameSecret } from '../src/auth/same-secret.js';
import { createHub } from '../src/index.js';
import { createLogger } from '../src/internal.js';

t.test('sameSecret compares digests: equal, unequal, and unequal lengths (issue 10)', async (t) => {
  t.ok(sameSecret('Bearer s3cret', 'Bearer s3cret'));
  t.notOk(sameSecret('Bearer s3creT', 'Bearer s3cret'), 'same length, one byte off');
  t.notOk(sameSecret('Bearer s3cret-and-more', 'Bearer s3cret'), 'a longer value');
  t.notOk(sameSecret('', 'Bearer s3cret'), 'nothing given');
});

t.test('/metrics with a token: only the exact Bearer value is let in', async (t) => {
  const s = await startTestHub({
    dir: t.testdir(),
    plugins: [],
    registries: [],
    config: { metrics: { token: 'metrics-token-for-tests' } },
  });
  t.teardown(() => s.close());
  const get = (authorization?: string) =>
    fetch(`${s.url}/metrics`, { headers: authorization ? { authorization } : {} });
  t.equal((await get('Bearer metrics-token-for-tests')).status, 200);
  for (const wrong of [
    undefined,
    'Bearer metrics-token-for-tesTs',
    'Bearer metrics-token-for-tests-',
    'metrics-token-for-tests',
  ])
    t.equal((await get(wrong)).status, 401, `refused: ${String(wrong)}`);
});

t.test('/metrics without a token is said at start, in one warning line (issue 26)', async (t) => {
  const warnings = async (extra: string) => {
    const dir = t.testdir();
    const lines: Array<{ level: number; msg: string }> = [];
    const destination = new Writable({
      write: (c: Buffer, _e, done) => (lines.push(JSON.parse(c.toString()) as { level: number; msg: string }), done()),
    });
    const hub = await createHub({
      plugins: [],
      configText: `[database]\nclient = "sqlite"\nfilename = "${path.join(dir, 'hub.db')}"\n[storage]\nkind = "fs"\npath = "${path.join(dir, 'blobs')}"\n${extra}`,
      env: { HUB_ADMIN_TOKEN: 'hub_metrics_test_0123456789abcdef0' },
      logger: createLogger({ level: 'info', destination }),
      print: () => {},
    });
    await hub.listen('127.0.0.1:0');
    await hub.close();
    return lines.filter((l) => l.level === 40 && l.msg.includes('/metrics')).map((l) => l.msg);
  };
  t.same(
    await warnings(''),
    ['/metrics is served without a token: anyone reaching this listener reads it (set [metrics] token to require one)'],
    'open: one warning',
  );
  t.same(await warnings('[metrics]\ntoken = "metrics-token-for-tests"\n'), [], 'with a token: none');
});
