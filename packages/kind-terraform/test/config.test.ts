import t, { type Test } from 'tap';
import type { PluginContext } from '@hub/runtime';
import { startTestHub } from '@hub/testkit';
import terraform, { discovery } from '../src/index.js';

const start = (t: Test, registries: Array<Record<string, unknown>>) =>
  startTestHub({ dir: t.testdir(), plugins: [terraform, discovery], registries }).then(
    (h) => (t.teardown(() => h.close()), h),
  );

t.test('the kind validates its own [[registries]] keys', async (t) => {
  const base = { name: 'tf', type: 'terraform', mode: 'proxy', upstream: 'http://127.0.0.1:9' };
  await t.rejects(start(t, [{ ...base, probe_platform: 'linux/amd64' }]), /probe_platform/);
  await t.rejects(start(t, [{ ...base, mirror_hostnames: ['Bad Host'] }]), /mirror_hostnames/);
  await t.rejects(start(t, [{ ...base, no_such_key: 1 }]), /no_such_key/);
  const ok = await start(t, [{ ...base, probe_platform: 'darwin_arm64', mirror_hostnames: ['registry.hub.test'] }]);
  t.same(ok.hub.registries.get('tf')!.info.config, {
    probe_platform: 'darwin_arm64',
    mirror_hostnames: ['registry.hub.test'],
  });
});

t.test(
  'service discovery names the marked terraform registry; two marked ones are a configuration error',
  async (t) => {
    const reg = (name: string, extra: Record<string, unknown> = {}) => ({
      name,
      type: 'terraform',
      mode: 'proxy',
      upstream: 'http://127.0.0.1:9',
      ...extra,
    });
    const first = await start(t, [reg('tf-a'), reg('tf-b')]);
    t.same(
      await (await fetch(`${first.url}/.well-known/terraform.json`)).json(),
      { 'providers.v1': '/proxy/tf-a/v1/providers/' },
      'the first by default',
    );
    const marked = await start(t, [reg('tf-a'), reg('tf-b', { service_discovery: true })]);
    t.same(
      await (await fetch(`${marked.url}/.well-known/terraform.json`)).json(),
      { 'providers.v1': '/proxy/tf-b/v1/providers/' },
      'the marked one',
    );
    // Called directly: a hub whose plugin setup throws is not closed by createHub (reported to the runtime).
    const routes: string[] = [];
    const ctx = {
      config: { server: {} },
      registries: [
        reg('tf-a', { extra: { service_discovery: true } }),
        reg('tf-b', { extra: { service_discovery: true } }),
      ],
      router: { get: (p: string) => routes.push(p) },
      log: first.hub.log,
    } as unknown as PluginContext;
    t.throws(
      () => discovery.setup!(ctx),
      /service_discovery = true is set on "tf-a" and "tf-b"; one host can name only one terraform registry/,
    );
    t.same(routes, [], 'no route registered');
    const none = await startTestHub({ dir: t.testdir(), plugins: [terraform, discovery], registries: [] });
    t.teardown(() => none.close());
    t.equal(
      (await fetch(`${none.url}/.well-known/terraform.json`)).status,
      404,
      'no terraform registry: no discovery document',
    );
  },
);

t.test('coordinates: <namespace>/<type>[@<version>], lower-cased', async (t) => {
  const c = terraform.coordinate;
  t.same(c.parse('hubns/hubdemo@1.2.3'), { name: 'hubns/hubdemo', version: '1.2.3' });
  t.same(c.parse('HubNS/HubDemo'), { name: 'hubns/hubdemo' });
  t.equal(c.format({ name: 'hubns/hubdemo', version: '1.2.3' }), 'hubns/hubdemo@1.2.3');
  t.same(
    c.parse(c.format({ name: 'a/b', version: '0.1.0-beta.1' })),
    { name: 'a/b', version: '0.1.0-beta.1' },
    'round trip',
  );
  for (const bad of ['hubdemo', 'a/b/c', '../x', 'a/b@latest', 'a /b', ''])
    t.equal(c.parse(bad), null, JSON.stringify(bad));
  t.equal(c.normalizeName!('HubNS/HubDemo'), 'hubns/hubdemo');
});
