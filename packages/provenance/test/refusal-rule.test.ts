import t from 'tap';
import type { ProvenanceFact } from '@hub/runtime';
import { Value } from 'typebox/value';
import { ProvenanceRuleSchema, type ProvenanceRule } from '../src/config.js';
import type { Checker } from '../src/checker.js';
import { provenanceRule } from '../src/refusal-rule.js';

const fact = (o: Partial<ProvenanceFact>): ProvenanceFact => ({
  status: 'verified',
  sourceRepository: null,
  workflow: null,
  ref: null,
  builder: null,
  reason: null,
  checkedAt: '2026-01-01T00:00:00.000Z',
  sourceChanged: false,
  ...o,
});
const rule = (o: Partial<ProvenanceRule>) =>
  Value.Default(ProvenanceRuleSchema, { registry: 'npm', ...o }) as ProvenanceRule;

/** The rule's decisions over results a checker would have stored (the checker itself is tested end to end). */
function ruleOver(rules: ProvenanceRule[], results: Record<string, ProvenanceFact | Error>, attesting = ['npm']) {
  const asked: string[] = [];
  const checker = {
    attests: (r: string) => attesting.includes(r),
    check: async (_r: string, name: string, version: string) => {
      asked.push(`${name}@${version}`);
      const f = results[`${name}@${version}`];
      if (f instanceof Error) throw f;
      return f ?? fact({ status: 'absent', reason: 'none attested' });
    },
  } as unknown as Checker;
  return { refuse: provenanceRule(rules, checker), asked };
}

t.test('which versions a rule covers, and what it says when it refuses (issue 30)', async (t) => {
  const { refuse, asked } = ruleOver([rule({ packages: ['@acme/*'], source: ['forge.example/acme/*'] })], {
    '@acme/a@1.0.0': fact({ sourceRepository: 'https://Forge.Example/ACME/a' }),
    '@acme/a@2.0.0': fact({ sourceRepository: 'https://forge.example/mallory/a' }),
    '@acme/a@3.0.0': fact({ status: 'failed', reason: 'signature verification failed' }),
    '@acme/a@4.0.0': new Error('upstream answered 503'),
    '@acme/a@5.0.0': fact({ sourceRepository: null }),
  });
  t.equal(
    await refuse('npm', { name: '@acme/a', version: '1.0.0' }),
    null,
    'verified, from an allowed source (case folded)',
  );
  t.equal(
    await refuse('npm', { name: '@acme/a', version: '2.0.0' }),
    '@acme/a 2.0.0 is refused: provenance required: built from forge.example/mallory/a, which is not forge.example/acme/*',
  );
  t.equal(
    await refuse('npm', { name: '@acme/a', version: '3.0.0' }),
    '@acme/a 3.0.0 is refused: provenance required: signature verification failed',
  );
  t.equal(
    await refuse('npm', { name: '@acme/a', version: '4.0.0' }),
    "@acme/a 4.0.0 is refused: provenance required: the upstream's attestations could not be read (upstream answered 503)",
  );
  t.match(await refuse('npm', { name: '@acme/a', version: '5.0.0' }), /names no source repository/);
  t.equal(await refuse('npm', { name: 'left-pad', version: '1.0.0' }), null, 'a package the rule does not cover');
  t.equal(await refuse('npm', { name: '@acme/a' }), null, 'no version: a listing, not refused');
  t.equal(await refuse('other', { name: '@acme/a', version: '1.0.0' }), null, 'another registry');
  t.same(
    asked,
    ['@acme/a@1.0.0', '@acme/a@2.0.0', '@acme/a@3.0.0', '@acme/a@4.0.0', '@acme/a@5.0.0'],
    'only covered versions are checked',
  );
});

t.test('a rule on a registry that cannot attest refuses, naming why; require = false refuses nothing', async (t) => {
  const { refuse } = ruleOver([rule({ registry: 'py*' })], {}, ['npm']);
  t.match(
    await refuse('pypi', { name: 'x', version: '1.0' }),
    /provenance required: registry pypi has no upstream that attests provenance/,
  );
  const off = ruleOver([rule({ require: false })], {});
  t.equal(await off.refuse('npm', { name: 'x', version: '1.0.0' }), null);
  t.same(off.asked, []);
});

t.test('a crafted name against a many-star pattern is matched without backtracking', async (t) => {
  const { refuse } = ruleOver([rule({ packages: ['*a*a*a*a*a*a*a*a*a*b'] })], {});
  t.equal(await refuse('npm', { name: 'a'.repeat(214), version: '1.0.0' }), null, 'no match, answered at once');
});
