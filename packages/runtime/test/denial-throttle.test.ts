import t from 'tap';
import { createCountingThrottle, createDenialThrottle } from '../src/audit/denial-throttle.js';

t.test('a counting throttle admits one per key and window, and tells the next one how many it left out', async (t) => {
  const th = createCountingThrottle();
  t.equal(th.admit('flag\u00001.2.3.4', 60_000, 0), 0, 'the first is written');
  t.equal(th.admit('flag\u00001.2.3.4', 60_000, 1_000), false, 'within the window: left out');
  t.equal(th.admit('flag\u00001.2.3.4', 60_000, 59_999), false);
  t.equal(th.admit('flag\u00005.6.7.8', 60_000, 2_000), 0, 'another address has its own window');
  t.equal(
    th.admit('flag\u00001.2.3.4', 60_000, 60_000),
    2,
    'after the window: written, with the count of those left out',
  );
  t.equal(th.admit('flag\u00001.2.3.4', 60_000, 120_000), 0, 'none left out since');
});

t.test('the denial throttle still admits one per code and address a second', async (t) => {
  const th = createDenialThrottle();
  t.ok(th.admit('ip_blocked', '1.2.3.4'));
  t.notOk(th.admit('ip_blocked', '1.2.3.4'));
});
