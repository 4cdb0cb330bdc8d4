import t from 'tap';
import { compareSemver, isPrerelease } from '../src/semver.js';

t.test('npm version order: semver precedence, invalid versions lowest', async (t) => {
  const sorted = ['1.0.0', '1.0.0-rc.10', '1.0.0-rc.2', '0.9.0', '1.0.0-alpha', '10.0.0', '2.0.0+build.5'].sort(
    compareSemver,
  );
  t.same(sorted, ['0.9.0', '1.0.0-alpha', '1.0.0-rc.2', '1.0.0-rc.10', '1.0.0', '2.0.0+build.5', '10.0.0']);
  for (const bad of ['01.2.3', '1.2', 'latest', `1.2.3-${'x'.repeat(300)}`, '99999999999999999999.0.0']) {
    t.equal(compareSemver(bad, '0.0.1'), -1, `${bad.slice(0, 20)} sorts below a valid version`);
    t.ok(isPrerelease(bad), `${bad.slice(0, 20)} is never preferred as a release`);
  }
  t.notOk(isPrerelease('1.2.3+build'));
  t.ok(isPrerelease('1.2.3-beta.1'));
});
