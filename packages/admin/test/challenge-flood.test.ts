import t from 'tap';
import { auditRows, request, setup } from './setup.js';

/** The schema defaults of [limits] (testkit lifts them out of the way; these tests are about them). */
const DEFAULT_LIMITS = { rate_per_ip: 50, burst_per_ip: 200, challenges_per_ip: 20, challenge_burst_per_ip: 200 };

t.test(
  '1,000 requests without credentials: 429 past the challenge budget, and a bounded number of audit rows (issue 10)',
  async (t) => {
    const s = await setup(t, { config: { limits: DEFAULT_LIMITS } });
    const flood = '127.0.0.20';
    const statuses: number[] = [];
    const started = Date.now();
    for (let batch = 0; batch < 50; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          request(`${s.base}/hubdemo`, 'GET', { headers: { accept: 'application/json' }, localAddress: flood }),
        ),
      );
      statuses.push(...answers.map((a) => a.status));
    }
    const seconds = Math.ceil((Date.now() - started) / 1000);
    const challenged = statuses.filter((x) => x === 401).length;
    const limited = statuses.filter((x) => x === 429).length;
    t.equal(challenged + limited, 1000, 'every answer is a challenge or a 429');
    t.ok(
      challenged <= 200 + 20 * seconds,
      `${challenged} challenges: the burst plus the refill over ${seconds}s, at most`,
    );
    t.ok(limited > 0 || seconds > 40, `${limited} refused with 429 (none only if the run took over 40 s)`);
    const rows = (await auditRows(s)).filter((r) => r.ip_address === flood);
    // One row per outcome per one-second window the flood spanned, however slow the machine.
    t.ok(rows.length <= 2 * (seconds + 1), `${rows.length} audit rows for 1,000 requests over ${seconds}s`);
    t.ok(
      rows.some((r) => r.outcome === 'challenged') && rows.some((r) => r.code === 'rate_limited'),
      'both kinds of answer are recorded',
    );
    const metrics = (await request(`${s.url}/metrics`, 'GET', { localAddress: '127.0.0.22' })).text;
    t.match(metrics, new RegExp(`hub_auth_challenges_total ${challenged}\\b`), 'every challenge is still counted');
  },
);

t.test(
  'a maven-like client asking without, then with credentials for 50 files is never throttled (issue 10)',
  async (t) => {
    const s = await setup(t, { config: { limits: DEFAULT_LIMITS } });
    const token = await s.token('ci', { roles: ['reader'] });
    const basic = `Basic ${Buffer.from(`ci:${token}`).toString('base64')}`;
    const from = '127.0.0.21';
    const seen: string[] = [];
    for (let i = 0; i < 50; i++) {
      const path = `${s.base}/hubdemo/-/hubdemo-${i % 2 ? '1.1.0' : '1.0.0'}.tgz`;
      const ask = await request(path, 'GET', { localAddress: from });
      const again = await request(path, 'GET', { headers: { authorization: basic }, localAddress: from });
      seen.push(`${ask.status}/${again.status}`);
      if (ask.status === 401) t.match(ask.headers['www-authenticate'], /Basic/);
    }
    t.same([...new Set(seen)], ['401/200'], 'every file: a challenge, then the file');
  },
);
