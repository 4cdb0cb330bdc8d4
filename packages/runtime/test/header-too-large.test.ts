import t from 'tap';
import { startTestHub } from '@hub/testkit';

t.test("an oversized request header gets 431 in the error format (moved here from the kinds' tests)", async (t) => {
  const s = await startTestHub({ dir: t.testdir(), plugins: [], registries: [] });
  t.teardown(() => s.close());
  const res = await fetch(`${s.url}/proxy/any/path`, { headers: { 'x-big': 'a'.repeat(20_000) } });
  t.equal(res.status, 431);
  t.equal(((await res.json()) as { error: { code: string } }).error.code, 'header_too_large');
});

t.test(
  'an overlong request line gets 431 in the error format, before any kind sees it (moved here from kind-forge)',
  async (t) => {
    const s = await startTestHub({ dir: t.testdir(), plugins: [], registries: [] });
    t.teardown(() => s.close());
    const res = await fetch(`${s.url}/proxy/any/${'a'.repeat(20_000)}`);
    t.equal(res.status, 431);
    const text = await res.text();
    t.equal((JSON.parse(text) as { error: { code: string } }).error.code, 'header_too_large');
    t.notMatch(text, /at .*\.js:\d+/, 'no stack trace');
  },
);
