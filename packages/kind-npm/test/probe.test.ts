import t from 'tap';
import { startFixtureUpstream, startTestHub } from '@hub/testkit';
import npm from '../src/index.js';
import { MAX_PACKUMENT_BYTES } from '../src/probe.js';

t.test('the probe reads at most MAX_PACKUMENT_BYTES of a packument: a larger one decides nothing', async (t) => {
  const upstream = await startFixtureUpstream({
    handler: async (req, res) => {
      if (req.url === '/huge') {
        // Announces more than the cap; the probe refuses it from the header without reading on.
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MAX_PACKUMENT_BYTES + 1) });
        res.write('{"versions":{"1.0.0":{}');
        setTimeout(() => res.destroy(), 200);
        return true;
      }
      if (req.url === '/small') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"versions":{"1.0.0":{}}}');
        return true;
      }
      return false;
    },
  });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [npm],
    registries: [{ name: 'npm', type: 'npm', upstream: upstream.url }],
  });
  t.teardown(() => hub.close());
  const reg = hub.hub.registries.get('npm')!;
  const pc = { registry: reg.info as never, upstream: reg.upstream, log: hub.hub.log };

  const small = await npm.probe!(pc, 'small', ['1.0.0', '2.0.0']);
  t.same(
    small.map((r) => r.answer),
    ['present', 'absent'],
    'a packument within the cap is read',
  );
  const huge = await npm.probe!(pc, 'huge', ['1.0.0', '2.0.0']);
  t.same(
    huge.map((r) => r.answer),
    ['inconclusive', 'inconclusive'],
    'past the cap: inconclusive, never absent',
  );
  t.match(huge[0]?.detail, /size limit/);
});
