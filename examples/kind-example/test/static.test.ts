import path from 'node:path';
import t, { type Test } from 'tap';
import { rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import staticKind from '../src/index.js';

async function setup(t: Test) {
  const root = t.testdir({
    up: {
      tool: {
        'versions.json': JSON.stringify({ versions: ['1.0.0', '1.1.0'] }),
        '1.0.0': { 'tool.txt': 'tool one' },
        '1.1.0': { 'tool.txt': 'tool one point one' },
      },
    },
    hub: {},
  });
  const upstream = await startFixtureUpstream({ root: path.join(root, 'up') });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: path.join(root, 'hub'),
    plugins: [staticKind],
    registries: [{ name: 'tools', type: 'static', upstream: upstream.url }],
  });
  t.teardown(() => hub.close());
  const token = await hub.token('ci', { roles: ['reader'] });
  const get = (p: string, auth = true) =>
    rawRequest(`${hub.url}/proxy/tools/${p}`, { headers: auth ? { authorization: `Bearer ${token}` } : {} });
  return { hub, upstream, get };
}

// Blocks, unlisting, upstream failures, HEAD and the 503 probe are kindConformance's (conformance.test.ts).
t.test('a third-party kind: files are cached once; the runtime asks for a token; bad names are 400', async (t) => {
  const s = await setup(t);
  t.equal((await s.get('tool/1.0.0/tool.txt', false)).status, 401, 'the runtime asks for a token');
  const first = await s.get('tool/1.0.0/tool.txt');
  t.equal(first.body.toString(), 'tool one');
  await s.hub.hub.artifacts.idle();
  t.equal((await s.get('tool/1.0.0/tool.txt')).headers.get('x-hub-cache'), 'hit');
  t.equal(s.upstream.count('/tool/1.0.0/tool.txt'), 1);
  t.equal((await s.get('Tool!/1.0.0/tool.txt')).status, 400);
});

t.test('the probe answers present and absent from the listing', async (t) => {
  const s = await setup(t);
  const reg = s.hub.hub.registries.get('tools')!;
  const pc = { registry: reg.info, upstream: reg.upstream, log: s.hub.hub.log };
  t.same(
    (await staticKind.probe!(pc, 'tool', ['1.0.0', '9.9.9'])).map((r) => r.answer),
    ['present', 'absent'],
  );
});
