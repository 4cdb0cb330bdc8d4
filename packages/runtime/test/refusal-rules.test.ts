// Plugins' refusal rules answer from memory or with a promise (decision 0075): either way a refusal refuses, a
// waiver lifts what it names, and each rule is asked once per request, in order.
import path from 'node:path';
import t from 'tap';
import { filesKind, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { definePlugin, type RefusalAnswer } from '../src/index.js';

type Answer = RefusalAnswer | Promise<RefusalAnswer>;

t.test('sync and promised answers from refusal rules, with a waiver', async (t) => {
  const root = t.testdir({ up: { pkg: { '1.0.0': { 'a.txt': 'file a' } } }, hub: {} });
  const upstream = await startFixtureUpstream({ root: path.join(root, 'up') });
  t.teardown(() => upstream.close());
  // What each rule answers next, and how often each was asked.
  let answers: [() => Answer, () => Answer] = [() => null, () => null];
  const asked: [number, number] = [0, 0];
  const rules = definePlugin({
    id: 'test-rules',
    contract: 1,
    description: 'two refusal rules and a waiver',
    deps: ['refusals', 'waivers'],
    async setup(ctx) {
      ctx.refusals.push(
        () => (asked[0]++, answers[0]()),
        () => (asked[1]++, answers[1]()),
      );
      ctx.waivers.push(async (target) => (target === 'rule:lift-me' ? 'test waiver' : null));
    },
  });
  const hub = await startTestHub({
    dir: path.join(root, 'hub'),
    plugins: [filesKind, rules],
    registries: [{ name: 'files', type: 'files', upstream: upstream.url }],
  });
  t.teardown(() => hub.close());
  const token = await hub.token('reader', { permissions: ['source:read'] });
  const get = async () => {
    const res = await fetch(`${hub.url}/proxy/files/pkg/1.0.0/a.txt`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = await res.text();
    return { status: res.status, body };
  };
  const cases: Array<{
    name: string;
    answers: [() => Answer, () => Answer];
    status: number;
    says?: RegExp;
    asked: [number, number];
  }> = [
    { name: 'both null from memory: served', answers: [() => null, () => null], status: 200, asked: [1, 1] },
    {
      name: 'a refusal from memory',
      answers: [() => 'refused from memory', () => null],
      status: 403,
      says: /refused from memory/,
      asked: [1, 0],
    },
    {
      name: 'a promised refusal',
      answers: [async () => 'refused later', () => null],
      status: 403,
      says: /refused later/,
      asked: [1, 0],
    },
    {
      name: 'a promised null, then a refusal from memory',
      answers: [async () => null, () => 'the second rule refuses'],
      status: 403,
      says: /the second rule refuses/,
      asked: [1, 1],
    },
    {
      name: 'a refusal from memory that the waiver lifts, then the next rule is asked',
      answers: [() => ({ message: 'lifted', target: 'rule:lift-me' }), () => null],
      status: 200,
      asked: [1, 1],
    },
    {
      name: 'a lifted refusal, then a refusal from the next rule',
      answers: [() => ({ message: 'lifted', target: 'rule:lift-me' }), async () => 'still refused'],
      status: 403,
      says: /still refused/,
      asked: [1, 1],
    },
    {
      // A plain-JS rule that returns nothing.
      name: 'undefined from memory: no refusal',
      answers: [() => undefined as unknown as null, () => null],
      status: 200,
      asked: [1, 1],
    },
    {
      name: 'a refusal no waiver names',
      answers: [() => ({ message: 'not waived', target: 'rule:other' }), () => null],
      status: 403,
      says: /not waived/,
      asked: [1, 0],
    },
  ];
  for (const c of cases) {
    answers = c.answers;
    asked[0] = asked[1] = 0;
    const got = await get();
    t.equal(got.status, c.status, c.name);
    if (c.says) t.match(got.body, /package_blocked/, `${c.name}: package_blocked`);
    if (c.says) t.match(got.body, c.says, `${c.name}: the rule's message`);
    if (c.status === 200) t.equal(got.body, 'file a', `${c.name}: the file`);
    t.same(asked, c.asked, `${c.name}: each rule asked once, until one refuses`);
  }
});
