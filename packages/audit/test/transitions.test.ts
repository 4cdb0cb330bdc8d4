import t from 'tap';
import { isVoid, transition, type AuditRow } from '../src/transitions.js';

const rule = { confirmAfter: 3, confirmMinAgeMs: 1000 };
const row = (over: Partial<AuditRow>): AuditRow => ({
  registry: 'r',
  package_name: 'p',
  version: '1',
  state: 'missing',
  first_missed_at: 0,
  last_checked_at: 0,
  confirmed_at: null,
  misses: 1,
  rung: null,
  detail: null,
  policy: 'audit',
  ...over,
});

t.test('the state machine of packages/audit/README.md', async (t) => {
  t.same(transition(undefined, 'present', 10, rule, true), { to: 'none' });
  t.same(transition(undefined, 'inconclusive', 10, rule, true), { to: 'none' });
  t.same(transition(undefined, 'not_audited', 10, rule, true), { to: 'none' });
  t.same(
    transition(undefined, 'absent', 10, rule, true),
    { to: 'missing', misses: 1, firstMissedAt: 10 },
    'first miss: counted, not believed',
  );
  t.same(transition(undefined, 'absent', 10, rule, false), { to: 'none' }, 'a recheck never creates a row');
  t.same(transition(row({ misses: 1 }), 'absent', 5000, rule, true), { to: 'missing', misses: 2, firstMissedAt: 0 });
  t.same(
    transition(row({ misses: 2 }), 'absent', 5000, rule, true),
    { to: 'disappeared', misses: 3, confirmedAt: 5000, confirmedNow: true },
    'confirm_after consecutive misses, old enough',
  );
  t.same(
    transition(row({ misses: 2, first_missed_at: 4500 }), 'absent', 5000, rule, true),
    { to: 'missing', misses: 3, firstMissedAt: 4500 },
    'too young to confirm',
  );
  t.same(
    transition(row({ misses: 2 }), 'absent', 5000, rule, false),
    { to: 'touched' },
    'a recheck cannot confirm early',
  );
  t.same(
    transition(row({ misses: 2 }), 'inconclusive', 5000, rule, true),
    { to: 'touched' },
    'an unclear answer is no miss',
  );
  t.same(transition(row({ state: 'disappeared', misses: 3, confirmed_at: 7 }), 'absent', 9000, rule, true), {
    to: 'disappeared',
    misses: 4,
    confirmedAt: 7,
    confirmedNow: false,
  });
  t.same(
    transition(row({ state: 'disappeared' }), 'present', 9000, rule, false),
    { to: 'cleared', was: 'disappeared' },
    'a recheck can clear',
  );
  t.same(transition(row({ state: 'missing' }), 'present', 9000, rule, true), { to: 'cleared', was: 'missing' });
  t.same(
    transition(undefined, 'absent', 10, { confirmAfter: 1, confirmMinAgeMs: 0 }, true),
    { to: 'disappeared', misses: 1, confirmedAt: 10, confirmedNow: true },
    'confirm_after = 1 confirms at once',
  );
});

t.test('void sweeps', async (t) => {
  t.ok(isVoid({ probed: 5, conclusive: 0, missing: 0 }, 0.25, 10), 'nothing answered');
  t.notOk(isVoid({ probed: 0, conclusive: 0, missing: 0 }, 0.25, 10), 'nothing to probe is no outage');
  t.notOk(isVoid({ probed: 5, conclusive: 5, missing: 5 }, 0.25, 10), 'below min_probed: no ratio gate');
  t.ok(isVoid({ probed: 20, conclusive: 20, missing: 6 }, 0.25, 10), '30% missing > 25%');
  t.notOk(isVoid({ probed: 20, conclusive: 20, missing: 5 }, 0.25, 10), 'exactly the ratio is not over it');
});
