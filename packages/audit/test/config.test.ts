import t from 'tap';
import type { ConfigError } from '@hub/runtime';
import { loadConfig } from '@hub/runtime';
import audit from '../src/index.js';

const load = (text: string) => loadConfig({ text, pluginSections: [audit.config!] });

t.test("[upstream_audit] is the plugin's own section, with its defaults", async (t) => {
  t.same(load('').sections.upstream_audit, {
    enabled: false,
    on_confirmed: 'audit',
    confirm_after: 3,
    confirm_min_age_secs: 86400,
    outage_ratio: 0.25,
    min_probed: 10,
    on_content_change: 'audit',
    interval_secs: 21600,
  });
  t.equal(
    (load('[upstream_audit]\non_confirmed = "block"\n').sections.upstream_audit as { on_confirmed: string })
      .on_confirmed,
    'block',
  );
  t.equal(
    (load('[upstream_audit]\non_content_change = "block"\n').sections.upstream_audit as { on_content_change: string })
      .on_content_change,
    'block',
  );
  t.throws(() => load('[upstream_audit]\non_content_change = "ignore"\n'), 'on_content_change is audit or block');
});

t.test(
  'ranges from docs/config.md: confirm_after >= 1, interval_secs >= 300, outage_ratio in 0..1, each at its line',
  async (t) => {
    let error: ConfigError | undefined;
    try {
      load('[upstream_audit]\nconfirm_after = 0\ninterval_secs = 299\noutage_ratio = 1.5\n');
    } catch (e) {
      error = e as ConfigError;
    }
    t.equal(
      error?.message,
      [
        'hub.toml:2: upstream_audit.confirm_after: must be >= 1 (got 0)',
        'hub.toml:3: upstream_audit.interval_secs: must be >= 300 (got 299)',
        'hub.toml:4: upstream_audit.outage_ratio: must be <= 1 (got 1.5)',
      ].join('\n'),
    );
  },
);
