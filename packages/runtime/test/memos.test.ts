import t from 'tap';
import { boundedLru } from '../src/cache/bounded-lru.js';
import { createAccessControl } from '../src/policy/access-control.js';
import { ANONYMOUS, type Policy } from '../src/policy/decide.js';
import type { PolicySource } from '../src/policy/policy-source.js';
import type { Authenticator } from '../src/auth/authenticate.js';

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

t.test('remembered access decisions follow the policies in force: a new snapshot is decided afresh', async (t) => {
  let policies: readonly Policy[] = [];
  const source = { fresh: () => policies, current: async () => policies } as unknown as PolicySource;
  const ac = createAccessControl({} as Authenticator, source, ['source:read']);
  const first = await ac.decide({ subject: ANONYMOUS, permission: 'source:read', registry: 'npm' });
  t.equal(first.decision, 'allow');
  t.equal(await ac.decide({ subject: ANONYMOUS, permission: 'source:read', registry: 'npm' }), first, 'the same question, the same snapshot: remembered');
  t.equal((await ac.decide({ subject: ANONYMOUS, permission: 'source:write', registry: 'npm' })).decision, 'deny', 'another permission is its own question');
  policies = [{ effect: 'deny', permissions: ['source:read'], registries: ['npm'], packages: ['left-pad'] }];
  t.equal((await ac.decide({ subject: ANONYMOUS, permission: 'source:read', registry: 'npm', package: 'left-pad' })).decision, 'deny', 'a deny policy in the new snapshot holds at once');
  t.equal((await ac.decide({ subject: ANONYMOUS, permission: 'source:read', registry: 'npm', package: 'other' })).decision, 'allow');
  t.equal((await ac.decide({ subject: ANONYMOUS, permission: 'source:read', registry: 'npm' })).decision, 'allow', 'no package named: the package rule does not apply');
  const user = { user_id: 'u', token_id: 't', roles: [] };
  t.equal((await ac.decide({ subject: user, permission: 'source:read', registry: 'npm', package: 'left-pad' })).decision, 'deny', 'each subject is decided on its own');
  policies = [];
  t.equal((await ac.decide({ subject: ANONYMOUS, permission: 'source:read', registry: 'npm', package: 'left-pad' })).decision, 'allow', 'the policy removed: allowed again');
});

t.test('decideNow answers as decide does while the policies are fresh, and nothing (wait for decide) once they are not (#15)', async (t) => {
  let policies: readonly Policy[] | undefined = [];
  const current: readonly Policy[] = [{ effect: 'deny', permissions: ['source:read'], registries: ['npm'], packages: ['left-pad'] }];
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
});
