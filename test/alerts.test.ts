import fs from 'node:fs';
import t from 'tap';
import { defaultPlugins } from '@hub/cli';
import { startTestHub } from '@hub/testkit';

const rules = fs.readFileSync(new URL('../../docs/prometheus/hub-alerts.yml', import.meta.url), 'utf8');

t.test(
  'docs/prometheus/hub-alerts.yml names the documented alerts and only metrics the default hub exports',
  async (t) => {
    for (const name of ['HubDown', 'HubHighErrorRate', 'HubHighDenyRate'])
      t.match(rules, new RegExp(`alert: ${name}\\n`), name);
    const hub = await startTestHub({ dir: t.testdir(), plugins: await defaultPlugins(), registries: [] });
    t.teardown(() => hub.close());
    const exported = new Set(
      [...(await (await fetch(`${hub.url}/metrics`)).text()).matchAll(/^# TYPE (hub_\w+) /gmu)].map((m) => m[1]),
    );
    const used = new Set([...rules.matchAll(/\b(hub_[a-z_]+?)(?:_count|_bucket|_sum)?\{/gu)].map((m) => m[1]));
    t.ok(used.size >= 5, `the rules use ${[...used].join(', ')}`);
    for (const name of used) t.ok(exported.has(name), `${name} is exported`);
  },
);
