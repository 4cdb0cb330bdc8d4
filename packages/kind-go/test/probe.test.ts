import t from 'tap';
import go from '../src/index.js';
import { MAX_PROBE_BYTES } from '../src/probe.js';
import { setup } from './setup.js';

t.test('the probe reads at most MAX_PROBE_BYTES of a version list: a larger one is not believed', async (t) => {
  const s = await setup(t);
  const reg = s.hub.registries.get('go')!;
  const pc = { registry: reg.info as never, upstream: reg.upstream, log: s.hub.log };
  // Were this list read, v0.8.0 would be present by the listing; past the cap each version's .info decides.
  const list = `v0.8.0\n${'v0.0.1\n'.repeat(Math.ceil(MAX_PROBE_BYTES / 7))}`;
  s.upstream.fault('/github.com/pkg/errors/@v/list', { type: 'status', status: 200, body: list });
  const answers = await go.probe!(pc, 'github.com/pkg/errors', ['v0.9.1', 'v0.8.0']);
  t.same(
    answers.map((a) => [a.version, a.answer, a.rung]),
    [
      ['v0.9.1', 'present', 'version'],
      ['v0.8.0', 'absent', 'version'],
    ],
    'the oversized list is skipped; .info answers for each version',
  );
});
