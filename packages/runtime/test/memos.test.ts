import t from 'tap';
import { boundedLru } from '../src/cache/bounded-lru.js';
import { createAccessControl } from '../src/policy/access-control.js';
import { ANONYMOUS, type Policy } from '../src/policy/decide.js';
import type { PolicySource } from '../src/policy/policy-source.js';
import type { Authenticator } from '../src/auth/authenticate.js';
import { hashToken, memoisedTokenHash } from '../src/auth/tokens.js';

t.test('a bounded LRU sized on use keeps at most its entries, dropping the least recently used', async (t) => {
  const lru = boundedLru<string, number>(3);
  for (const k of ['a', 'b', 'c']) lru.set(k, 1);
  lru.get('a');
  lru.set('d', 1);
  t.equal(lru.size, 3);
  t.notOk(lru.has('b'), 'the least recently used went');
  t.ok(lru.has('a') && lru.has('c') && lru.has('d'));
  for (let i = 0; i < 100; i++) lru.set(`k${i}`, i);
  t.equal(lru.size, 3, 'still bounded');
});

t.test('a token hash memo answers what hashToken() does, and stays within its bound', async (t) => {
  const memo = memoisedTokenHash(2);
  t.equal(memo('hub_a'), hashToken('hub_a'));
  t.equal(memo('hub_a'), hashToken('hub_a'), 'remembered, the same hash');
  t.equal(memo('hub_b'), hashToken('hub_b'));
  t.equal(memo('hub_c'), hashToken('hub_c'), 'past the bound the oldest is forgotten');
  t.equal(memo('hub_a'), hashToken('hub_a'), 'a forgotten token is hashed again');
  t.not(memo('hub_a'), memo('hub_b'));
});

t.test('remembered access decisions follow the policies in force: a new snapshot is decided afresh', async (t) => {
  let policies: readonly Policy[] = [];
  const source = { fresh: () => policies, current: async () => policies } as unknown as PolicySource;
  const ac = createAccessControl({} as Authenticator, source, ['source:read']);
  const first = await ac.decide({ subject: ANONYMOUS, permission: 'source:read', registry: 'npm' });
  t.equal(first.decision, 'allow');
  t.equal(
    await ac.decide({ subject: ANONYMOUS, permission: 'source:read', registry: 'npm' }),
    first,
    'the same question, the same snapshot: remembered',
  );
  t.equal(
    (await ac.decide({ subject: ANONYMOUS, permission: 'source:write', registry: 'npm' })).decision,
    'deny',
    'another permission is its own question',
  );
  policies = [{ effect: 'deny', permissions: ['source:read'], registries: ['npm'], packages: ['left-pad'] }];
  t.equal(
    (await ac.decide({ subject: ANONYMOUS, permission: 'source:read', registry: 'npm', package: 'left-pad' })).decision,
    'deny',
    'a deny policy in the new snapshot holds at once',
  );
  t.equal(
    (await ac.decide({ subject: ANONYMOUS, permission: 'source:read', registry: 'npm', package: 'other' })).decision,
    'allow',
  );
  t.equal(
    (await ac.decide({ subject: ANONYMOUS, permission: 'source:read', registry: 'npm' })).decision,
    'allow',
    'no package named: the package rule does not apply',
  );
  const user = { user_id: 'u', token_id: 't', roles: [] };
  t.equal(
    (await ac.decide({ subject: user, permission: 'source:read', registry: 'npm', package: 'left-pad' })).decision,
    'deny',
    'each subject is decided on its own',
  );
  policies = [];
  t.equal(
    (await ac.decide({ subject: ANONYMOUS, permission: 'source:read', registry: 'npm', package: 'left-pad' })).decision,
    'allow',
    'the policy removed: allowed again',
  );
});

t.test(
  'decideNow answers as decide does while the policies are fresh, and nothing (wait for decide) once they are not (#15)',
  async (t) => {
    let policies: readonly Policy[] | undefined = [];
    const current: readonly Policy[] = [
      { effect: 'deny', permissions: ['source:read'], registries: ['npm'], packages: ['left-pad'] },
    ];
    const source = { fresh: () => policies, current: async () => current } as unknown as PolicySource;
    const ac = createAccessControl({} as Authenticator, source, ['source:read']);
    const q = { subject: ANONYMOUS, permission: 'source:read', registry: 'npm', package: 'left-pad' } as const;
    t.equal(ac.decideNow(q)?.decision, 'allow', 'fresh policies: answered at once');
    t.equal(ac.decideNow(q), await ac.decide(q), 'the same remembered decision as decide()');
    policies = [{ effect: 'deny', permissions: ['source:read'], registries: ['npm'], packages: ['left-pad'] }];
    t.equal(ac.decideNow(q)?.decision, 'deny', 'a new fresh snapshot holds at once');
    policies = undefined;
    t.equal(ac.decideNow(q), undefined, 'stale: no answer without reading the policies');
    t.equal((await ac.decide(q)).decision, 'deny', 'decide() reads the policies in force');
  },
);

t.test(
  'requireNow answers as require does from memory, and nothing (await require) when memory cannot tell',
  async (t) => {
    let policies: readonly Policy[] | undefined = [
      { effect: 'deny', permissions: ['source:read'], registries: ['npm'], packages: ['left-pad'] },
    ];
    const source = { fresh: () => policies, current: async () => policies ?? [] } as unknown as PolicySource;
    const reader = { user_id: 'u1', token_id: 't1', roles: ['reader'] };
    let known = true;
    const auth = {
      // Memory knows the token only while `known`; a bad header is refused either way.
      subjectNow: (h: string | undefined) => {
        if (h === 'Bearer bad') throw Object.assign(new Error('unknown token'), { status: 401 });
        return h === undefined ? ANONYMOUS : known ? reader : undefined;
      },
      subject: async (h: string | undefined) => (h === undefined ? ANONYMOUS : reader),
    } as unknown as Authenticator;
    const ac = createAccessControl(auth, source, []);
    const ctxWith = (authorization?: string) =>
      ({
        get: (h: string) => (h === 'authorization' ? (authorization ?? '') : ''),
        state: { audit: {} as Record<string, unknown> },
      }) as unknown as Parameters<typeof ac.requireNow>[0];

    const ok = ctxWith('Bearer good');
    t.equal(
      ac.requireNow(ok, 'source:read', { registry: 'npm', package: 'is-odd' }),
      reader,
      'a remembered token, an allowed read: its subject at once',
    );
    t.equal(
      (ok.state.audit as Record<string, unknown>).user_id,
      'u1',
      'the audit row names the token holder, as require() does',
    );
    t.same(
      await ac.require(ctxWith('Bearer good'), 'source:read', { registry: 'npm', package: 'is-odd' }),
      reader,
      'require() agrees',
    );
    t.throws(
      () => ac.requireNow(ctxWith('Bearer good'), 'source:read', { registry: 'npm', package: 'left-pad' }),
      { code: 'forbidden' },
      'a denied read is refused at once',
    );
    await t.rejects(
      ac.require(ctxWith('Bearer good'), 'source:read', { registry: 'npm', package: 'left-pad' }),
      { code: 'forbidden' },
      'as require() refuses it',
    );
    t.throws(
      () => ac.requireNow(ctxWith(), 'source:read', { registry: 'npm', package: 'is-odd' }),
      { code: 'unauthenticated' },
      'anonymous without the grant: 401',
    );
    t.throws(
      () => ac.requireNow(ctxWith('Bearer bad'), 'source:read', { registry: 'npm' }),
      /unknown token/,
      'a refused token is refused at once',
    );
    known = false;
    t.equal(
      ac.requireNow(ctxWith('Bearer good'), 'source:read', { registry: 'npm' }),
      undefined,
      'a token memory does not hold: no answer',
    );
    known = true;
    policies = undefined;
    t.equal(
      ac.requireNow(ctxWith('Bearer good'), 'source:read', { registry: 'npm' }),
      undefined,
      'stale policies: no answer',
    );
  },
);
