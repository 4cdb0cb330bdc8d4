import t from 'tap';
import { StartupError } from '@hub/runtime';
import { startTestHub } from '@hub/testkit';
import rubygems from '../src/index.js';

/**
 * The compact index and the specs indexes this kind reads carry no publish time (the versions API's
 * `created_at` is read only as a fallback listing), so it cannot apply a cool-down and says so at start.
 */
t.test('a cool-down on a rubygems registry is refused at start, naming the key', async (t) => {
  t.notOk(rubygems.publishTimes, 'the kind does not claim publish times');
  const err = await startTestHub({
    dir: t.testdir(),
    plugins: [rubygems],
    registries: [{ name: 'gems', type: 'rubygems', mode: 'proxy', upstream: 'http://127.0.0.1:9', security: { min_release_age_secs: 86400 } }],
  }).then(
    async (hub) => {
      await hub.close();
      return null;
    },
    (e: unknown) => e,
  );
  t.type(err, StartupError);
  t.match(err, { code: 'unsupported', message: /registries\[0\]\.security\.min_release_age_secs: the rubygems kind cannot tell when a version was published/ });
});

t.test('a security profile without a cool-down starts', async (t) => {
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [rubygems],
    registries: [{ name: 'gems', type: 'rubygems', mode: 'proxy', upstream: 'http://127.0.0.1:9', security: {} }],
  });
  t.teardown(() => hub.close());
  t.ok(hub.url);
});
