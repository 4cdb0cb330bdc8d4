import t from 'tap';
import { startTestHub } from '@hub/testkit';
import { sameSecret } from '../src/auth/same-secret.js';

t.test('sameSecret compares digests: equal, unequal, and unequal lengths (issue 10)', async (t) => {
  t.ok(sameSecret('Bearer s3cret', 'Bearer s3cret'));
  t.notOk(sameSecret('Bearer s3creT', 'Bearer s3cret'), 'same length, one byte off');
  t.notOk(sameSecret('Bearer s3cret-and-more', 'Bearer s3cret'), 'a longer value');
  t.notOk(sameSecret('', 'Bearer s3cret'), 'nothing given');
});

t.test('/metrics with a token: only the exact Bearer value is let in', async (t) => {
  const s = await startTestHub({ dir: t.testdir(), plugins: [], registries: [], config: { metrics: { token: 'metrics-token-for-tests' } } });
  t.teardown(() => s.close());
  const get = (authorization?: string) => fetch(`${s.url}/metrics`, { headers: authorization ? { authorization } : {} });
  t.equal((await get('Bearer metrics-token-for-tests')).status, 200);
  for (const wrong of [undefined, 'Bearer metrics-token-for-tesTs', 'Bearer metrics-token-for-tests-', 'metrics-token-for-tests'])
    t.equal((await get(wrong)).status, 401, `refused: ${String(wrong)}`);
});
