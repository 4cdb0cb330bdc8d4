import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import t from 'tap';
import Type, { type TSchema } from 'typebox';
import type { Mode, Permission } from '@hub/contract';
import { ConfigError, loadConfig, type LoadOptions } from '../src/config/load.js';
import { HubConfigSchema, secretPair, type ConfigSection, type HubConfig } from '../src/config/schema.js';
import { DEFAULT_FORBIDDEN_CIDRS } from '@hub/upstream';

type Asserts = Pick<typeof t, 'fail' | 'equal'>;

/** Joins lines so a test can say which line a key is on: line n is lines[n - 1]. */
const toml = (...lines: string[]): string => `${lines.join('\n')}\n`;

function loadError(tt: Asserts, opts: LoadOptions): ConfigError {
  try {
    loadConfig(opts);
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  tt.fail('expected a ConfigError');
  return new ConfigError('none');
}

/** The one issue's rendered message, after checking there is exactly one. */
function oneError(tt: Asserts, opts: LoadOptions): ConfigError {
  const e = loadError(tt, opts);
  tt.equal(e.issues.length, 1, `exactly one issue: ${e.message}`);
  return e;
}

/**
 * Plugin sections as a plugin declares them (@hub/audit, @hub/flags and @hub/webhooks test their own
 * schemas): a table, an array of tables with a secret and a check across its keys, and a table of tables.
 */
const AUDIT_LIKE: ConfigSection = {
  section: 'upstream_audit',
  schema: Type.Object({}, { additionalProperties: true, default: {}, description: 'Any keys.' }),
};
const SOURCES = Type.Array(
  Type.Object(
    { name: Type.String({ description: 'A name.' }), ...secretPair('secret', 'A secret') },
    { additionalProperties: false, description: 'A source.' },
  ),
  { default: [], description: 'Sources.' },
);
const SOURCES_LIKE: ConfigSection<typeof SOURCES> = {
  section: 'flag_sources',
  schema: SOURCES,
  check: (sources) =>
    sources.flatMap((s, i) =>
      s.secret === undefined ? [{ key: [i, 'secret'], message: 'missing required key (or secret_env)' }] : [],
    ),
};
const NOTIFICATIONS_LIKE: ConfigSection = {
  section: 'notifications',
  schema: Type.Object({}, { additionalProperties: true, default: {}, description: 'Any keys.' }),
};
const PLUGIN_SECTIONS = [AUDIT_LIKE, SOURCES_LIKE, NOTIFICATIONS_LIKE];

const npmRegistry = ['[[registries]]', 'name = "npm"', 'type = "npm"', 'upstream = "http://127.0.0.1:9/"'];

const FULL = toml(
  '[server]', // 1
  'listen = "127.0.0.1:8080"',
  'public_url = "http://localhost:8080/"',
  'trust_proxy = true',
  'tls_cert = "cert.pem"', // 5
  'tls_key = "/abs/key.pem"',
  'forbidden_networks = ["169.254.0.0/16", "fd00::/8"]',
  'connect_timeout_ms = 2000',
  '',
  '[database]', // 10
  'client = "sqlite"',
  'filename = "./data/hub.db"',
  '',
  '[storage]',
  'kind = "fs"', // 15
  'path = "./data/blobs"',
  '',
  '[auth]',
  'anonymous = ["source:read"]',
  `admin_token_sha256 = "${'AB'.repeat(32)}"`, // 20
  '',
  '[[auth.policies]]',
  'effect = "deny"',
  'permissions = ["source:read"]',
  'roles = ["reader"]', // 25
  'registries = ["internal-*"]',
  'packages = ["@acme/*"]',
  '',
  '[limits]',
  'packages_per_page = 20', // 30
  'rate_per_ip = 2.5',
  'burst_per_ip = 10',
  'max_json_body_bytes = 4096',
  '',
  '[cache]', // 35
  'memory_bytes = 0',
  '',
  '[upstream_audit]',
  'enabled = true',
  'on_confirmed = "block"', // 40
  'confirm_after = 1',
  'confirm_min_age_secs = 0',
  'outage_ratio = 0.5',
  'min_probed = 3',
  'interval_secs = 300', // 45
  '',
  '[[flag_sources]]',
  'name = "osv-bridge"',
  'secret = "s3cret"',
  '', // 50
  '[[notifications.webhooks]]',
  'url = "http://127.0.0.1:9000/hooks"',
  'events = ["package_disappeared_upstream", "upstream_unreachable"]',
  'secret_env = "HOOK_SECRET"',
  '', // 55
  '[metrics]',
  'token = "m"',
  '',
  '[plugins]',
  'load = ["@acme/hub-kind-helm"]', // 60
  '',
  '[[registries]]',
  'name = "npm"',
  'type = "npm"',
  'mode = "proxy"', // 65
  'upstream = "http://127.0.0.1:9/npm//"',
  'upstream_auth = { token_env = "NPM_TOKEN" }',
  'on_confirmed = "audit"',
  'metadata_ttl_secs = 60',
  '  [registries.security]', // 70
  '  min_release_age_secs = 3600',
  '',
  '[[registries]]',
  'name = "internal"',
  'type = "maven"', // 75
  'mode = "local"',
);

t.test('a full example parses, with every value where the file put it', async (tt) => {
  const dir = tt.testdir();
  const cfg = loadConfig({
    text: FULL,
    path: join(dir, 'hub.toml'),
    env: { NPM_TOKEN: 'npm-t', HOOK_SECRET: 'hook-s' },
    pluginSections: PLUGIN_SECTIONS,
  });
  tt.equal(cfg.server.public_url, 'http://localhost:8080', 'trailing slash stripped from public_url');
  tt.equal(cfg.server.trust_proxy, true);
  tt.equal(cfg.server.tls_cert, join(dir, 'cert.pem'), 'relative tls_cert resolved against the file');
  tt.equal(cfg.server.tls_key, '/abs/key.pem', 'absolute paths stay');
  tt.same(cfg.server.forbidden_networks, ['169.254.0.0/16', 'fd00::/8']);
  tt.equal(cfg.server.connect_timeout_ms, 2000);
  tt.equal(cfg.server.headers_timeout_ms, 10000, 'an unset key keeps its default next to set ones');
  tt.equal(cfg.database.filename, join(dir, 'data', 'hub.db'));
  tt.equal(cfg.storage.path, join(dir, 'data', 'blobs'));
  const anon: Permission[] = cfg.auth.anonymous;
  tt.same(anon, ['source:read']);
  tt.equal(cfg.auth.admin_token_sha256, 'ab'.repeat(32), 'admin hash lower-cased');
  tt.same(cfg.auth.policies, [
    {
      effect: 'deny',
      permissions: ['source:read'],
      roles: ['reader'],
      registries: ['internal-*'],
      packages: ['@acme/*'],
    },
  ]);
  tt.same(cfg.limits, {
    packages_per_page: 20,
    rate_per_ip: 2.5,
    burst_per_ip: 10,
    challenges_per_ip: 20,
    challenge_burst_per_ip: 200,
    rate_store: 'memory',
    rate_store_failure: 'open',
    max_json_body_bytes: 4096,
    max_metadata_bytes: 67108864,
    max_artifact_bytes: 4294967296,
    flag_hard_block_bytes: 67108864,
  });
  tt.equal(cfg.cache.memory_bytes, 0);
  tt.same(
    cfg.sections.upstream_audit,
    {
      enabled: true,
      on_confirmed: 'block',
      confirm_after: 1,
      confirm_min_age_secs: 0,
      outage_ratio: 0.5,
      min_probed: 3,
      interval_secs: 300,
    },
    "a plugin's section, as written",
  );
  tt.same(cfg.sections.flag_sources, [{ name: 'osv-bridge', secret: 's3cret' }]);
  tt.match(
    cfg.sections.notifications,
    { webhooks: [{ secret: 'hook-s' }] },
    'secret_env resolved into secret, in a table of a plugin section',
  );
  tt.equal(cfg.metrics.token, 'm');
  tt.same(cfg.plugins.load, ['@acme/hub-kind-helm']);
  const [npm, internal] = cfg.registries;
  const mode: Mode | undefined = npm?.mode;
  tt.equal(mode, 'proxy');
  tt.equal(npm?.upstream, 'http://127.0.0.1:9/npm', 'trailing slashes stripped from upstream');
  tt.equal(npm?.upstream_auth?.token, 'npm-t', 'token_env resolved into token');
  tt.equal(npm?.upstream_auth?.token_env, 'NPM_TOKEN', 'the _env name stays, for messages');
  tt.equal(npm?.on_confirmed, 'audit');
  tt.equal(npm?.metadata_ttl_secs, 60);
  tt.same(npm?.security, { min_release_age_secs: 3600 });
  tt.same(npm?.extra, {});
  tt.equal(internal?.mode, 'local');
  tt.equal(internal?.upstream, undefined);
  tt.equal(internal?.security, undefined, 'no [registries.security] table: no security profile');
});

t.test('an empty file gets every default', async (tt) => {
  const cfg = loadConfig({ text: '', path: '/srv/hub/hub.toml' });
  const expected: HubConfig = {
    server: {
      listen: '127.0.0.1:8080',
      trust_proxy: false,
      trusted_proxies: ['127.0.0.0/8', '::1'],
      allowed_hosts: [],
      forbidden_networks: [...DEFAULT_FORBIDDEN_CIDRS],
      upstream_no_proxy: [],
      max_connections: 10000,
      max_connections_per_client: 256,
      drain_secs: 5,
      shutdown_grace_ms: 10000,
      client_headers_timeout_ms: 30000,
      client_request_timeout_ms: 300000,
      connect_timeout_ms: 10000,
      headers_timeout_ms: 10000,
      deadline_ms: 120000,
      mirror_breaker_failures: 5,
      mirror_breaker_open_ms: 30000,
    },
    database: { client: 'sqlite', filename: '/srv/hub/data/hub.db' },
    storage: { kind: 'fs', path: '/srv/hub/data/blobs', force_path_style: false },
    auth: { anonymous: [], policies: [] },
    limits: {
      packages_per_page: 50,
      rate_per_ip: 50,
      burst_per_ip: 200,
      challenges_per_ip: 20,
      challenge_burst_per_ip: 200,
      rate_store: 'memory',
      rate_store_failure: 'open',
      max_json_body_bytes: 1048576,
      max_metadata_bytes: 67108864,
      max_artifact_bytes: 4294967296,
      flag_hard_block_bytes: 67108864,
    },
    cache: {
      memory_bytes: 134217728,
      memory_max_object_bytes: 1048576,
      metadata_fetch_concurrency: 32,
      metadata_max_stale_secs: 3600,
      verify_reads: true,
      fetch_lease_secs: 10,
      negative_ttl_secs: 60,
      max_bytes: 0,
      max_idle_days: 0,
      retention_interval_secs: 3600,
      cleanup_interval_secs: 86400,
    },
    audit_log: {
      enabled: true,
      flush_interval_ms: 500,
      batch_rows: 500,
      retention_days: 0,
      chain: 'local',
      checkpoint_key_id: 'default',
      checkpoint_every_rows: 10000,
      checkpoint_every_secs: 300,
      export: [],
    },
    metrics: {},
    plugins: { load: [] },
    registries: [],
    sections: {},
  };
  tt.strictSame(cfg, expected);
  tt.strictSame(loadConfig({}).server, expected.server, 'no path and no text: an empty document');
});

t.test('registry defaults: mode proxy, metadata_ttl_secs 300, security only when the table is present', async (tt) => {
  const cfg = loadConfig({ text: toml(...npmRegistry, '[registries.security]') });
  const reg = cfg.registries[0];
  tt.equal(reg?.mode, 'proxy');
  tt.equal(reg?.metadata_ttl_secs, 300);
  tt.same(reg?.security, { min_release_age_secs: 0 });
});

t.test('unknown keys are errors that name the key and its line, with a suggestion when one is close', async (tt) => {
  tt.test('top level table', async (t2) => {
    const e = oneError(t2, { text: toml('[sever]', 'listen = "127.0.0.1:1"') });
    t2.equal(e.message, 'hub.toml:1: sever: unknown key (did you mean "server"?)');
    t2.equal(e.key, 'sever');
    t2.equal(e.line, 1);
    t2.equal(e.file, 'hub.toml');
  });
  tt.test('top level key, nothing close', async (t2) => {
    const e = oneError(t2, { text: toml('', 'colour = "blue"') });
    t2.equal(e.message, 'hub.toml:2: colour: unknown key');
  });
  tt.test('in a section', async (t2) => {
    const e = oneError(t2, {
      text: toml('[server]', 'listen = "127.0.0.1:1"', 'trust_proxi = true'),
      path: 'conf/hub.toml',
    });
    t2.equal(e.message, 'conf/hub.toml:3: server.trust_proxi: unknown key (did you mean "trust_proxy"?)');
    t2.equal(e.file, 'conf/hub.toml');
  });
  tt.test('in a registry (no kind schema for its type)', async (t2) => {
    const e = oneError(t2, {
      text: toml(
        ...npmRegistry,
        '',
        ...npmRegistry.slice(0, 1),
        'name = "b"',
        'type = "npm"',
        'upstream = "http://127.0.0.1:9"',
        'metadata_ttl = 5',
      ),
    });
    t2.equal(
      e.message,
      'hub.toml:10: registries[1].metadata_ttl: unknown key for type "npm" (did you mean "metadata_ttl_secs"?)',
    );
    t2.equal(e.key, 'registries[1].metadata_ttl');
    t2.equal(e.line, 10);
  });
  tt.test('in a nested table of a registry', async (t2) => {
    const e = oneError(t2, { text: toml(...npmRegistry, '[registries.security]', 'min_release_age_sec = 5') });
    t2.equal(
      e.message,
      'hub.toml:6: registries[0].security.min_release_age_sec: unknown key (did you mean "min_release_age_secs"?)',
    );
  });
  tt.test('in an inline table', async (t2) => {
    const e = oneError(t2, { text: toml(...npmRegistry, 'upstream_auth = { tokn = "x" }') });
    t2.equal(e.message, 'hub.toml:5: registries[0].upstream_auth.tokn: unknown key (did you mean "token"?)');
  });
  tt.test('in an array of tables', async (t2) => {
    const e = oneError(t2, {
      text: toml('[auth]', '[[auth.policies]]', 'effect = "allow"', 'permissions = ["system:read"]', 'user = ["ann"]'),
    });
    t2.equal(e.message, 'hub.toml:5: auth.policies[0].user: unknown key (did you mean "users"?)');
  });
});

t.test('value errors name the key, the line, what is allowed and what was given', async (tt) => {
  tt.test('bad enum value', async (t2) => {
    const text = toml(
      ...npmRegistry,
      '',
      '[[registries]]',
      'name = "other"',
      'type = "npm"',
      'mode = "proxi"',
      'upstream = "http://127.0.0.1:9"',
    );
    const e = oneError(t2, { text });
    t2.equal(e.message, 'hub.toml:9: registries[1].mode: must be one of proxy, hybrid, local, group (got "proxi")');
    t2.equal(e.key, 'registries[1].mode');
    t2.equal(e.line, 9);
  });
  tt.test('wrong type', async (t2) => {
    t2.equal(
      oneError(t2, { text: toml('[limits]', 'rate_per_ip = "fast"') }).message,
      'hub.toml:2: limits.rate_per_ip: must be a number (got "fast")',
    );
    t2.equal(
      oneError(t2, { text: toml('[server]', 'trust_proxy = "yes"') }).message,
      'hub.toml:2: server.trust_proxy: must be true or false (got "yes")',
    );
    t2.equal(oneError(t2, { text: toml('server = 5') }).message, 'hub.toml:1: server: must be a table (got 5)');
    t2.equal(
      oneError(t2, { text: toml('[limits]', 'burst_per_ip = 1.5') }).message,
      'hub.toml:2: limits.burst_per_ip: must be an integer (got 1.5)',
    );
    t2.equal(
      oneError(t2, { text: toml('[database]', 'filename = 1979-05-27') }).message,
      'hub.toml:2: database.filename: must be a string (got a date)',
    );
  });
  tt.test('a bad array element points at its own line', async (t2) => {
    const e = oneError(t2, { text: toml('[auth]', 'anonymous = [', '  "source:read",', '  "source:rede",', ']') });
    t2.equal(
      e.message,
      'hub.toml:4: auth.anonymous[1]: must be one of source:read, source:write, system:read, system:write (got "source:rede")',
    );
  });
  tt.test('patterns are explained in words', async (t2) => {
    t2.equal(
      oneError(t2, { text: toml('[server]', 'listen = "8080"') }).message,
      'hub.toml:2: server.listen: must be HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080 (got "8080")',
    );
    t2.equal(
      oneError(t2, {
        text: toml('[[registries]]', 'name = "My Registry"', 'type = "npm"', 'upstream = "http://127.0.0.1:9"'),
      }).message,
      'hub.toml:2: registries[0].name: must be 1-63 characters of a-z, 0-9, ".", "_" and "-", starting with a letter or digit (got "My Registry")',
    );
    t2.equal(
      oneError(t2, { text: toml(...npmRegistry.slice(0, 3), 'upstream = "ftp://127.0.0.1/"') }).message,
      'hub.toml:4: registries[0].upstream: must be an http:// or https:// URL (got "ftp://127.0.0.1/")',
    );
    t2.equal(
      oneError(t2, { text: toml('[auth]', 'admin_token_sha256 = "abc"') }).message,
      'hub.toml:2: auth.admin_token_sha256: must be 64 hex digits (the SHA-256 of the token) (got "abc")',
    );
    t2.equal(
      oneError(t2, { text: toml(...npmRegistry, 'allowed_origins = ["http://127.0.0.1:9/files"]') }).message,
      'hub.toml:5: registries[0].allowed_origins[0]: must be an origin only, scheme://host[:port] (got "http://127.0.0.1:9/files")',
      'a list entry is named by its index',
    );
  });
  tt.test('a missing required key points at its table header', async (t2) => {
    const e = oneError(t2, { text: toml('[server]', '', '[[registries]]', 'name = "npm"', 'mode = "local"') });
    t2.equal(e.message, 'hub.toml:3: registries[0].type: missing required key');
  });
  tt.test('empty strings and empty lists', async (t2) => {
    t2.equal(
      oneError(t2, { text: toml('[[flag_sources]]', 'name = "a"', 'secret = ""'), pluginSections: PLUGIN_SECTIONS })
        .message,
      'hub.toml:3: flag_sources[0].secret: must not be empty',
    );
  });
});

t.test('cross-field rules', async (tt) => {
  tt.test('upstream is required for proxy and hybrid', async (t2) => {
    for (const mode of ['proxy', 'hybrid']) {
      const e = oneError(t2, { text: toml('[[registries]]', 'name = "npm"', 'type = "npm"', `mode = "${mode}"`) });
      t2.equal(
        e.message,
        `hub.toml:1: registries[0].upstream: missing required key: mode "${mode}" needs an upstream URL (or upstreams, a list of mirrors)`,
      );
    }
    t2.equal(
      oneError(t2, { text: toml('[[registries]]', 'name = "npm"', 'type = "npm"') }).key,
      'registries[0].upstream',
      'proxy is the default mode',
    );
  });
  tt.test('upstreams: a list of mirrors, exclusive with upstream', async (t2) => {
    const base = ['[[registries]]', 'name = "npm"', 'type = "npm"'];
    const both = oneError(t2, {
      text: toml(...base, 'upstream = "http://127.0.0.1:9"', 'upstreams = ["http://127.0.0.1:10"]'),
    });
    t2.equal(
      both.message,
      'hub.toml:5: registries[0].upstreams: give upstream (one URL) or upstreams (a list of mirrors), not both',
    );
    t2.equal(both.key, 'registries[0].upstreams');
    const bad = oneError(t2, { text: toml(...base, 'upstreams = ["http://127.0.0.1:9/a", "ftp://127.0.0.1/b"]') });
    t2.equal(bad.key, 'registries[0].upstreams[1]', `names the bad entry: ${bad.message}`);
    t2.match(bad.message, /must be an http:\/\/ or https:\/\/ URL/);
    t2.equal(
      oneError(t2, { text: toml(...base, 'upstreams = []') }).key,
      'registries[0].upstreams',
      'an empty list is refused',
    );
    const nine = Array.from({ length: 9 }, (_, i) => `"http://127.0.0.1:${9000 + i}"`).join(', ');
    t2.equal(
      oneError(t2, { text: toml(...base, `upstreams = [${nine}]`) }).key,
      'registries[0].upstreams',
      'at most 8 mirrors',
    );
    const twice = oneError(t2, {
      text: toml(...base, 'upstreams = ["http://127.0.0.1:9/a", "http://127.0.0.1:9/a/"]'),
    });
    t2.equal(twice.key, 'registries[0].upstreams[1]');
    t2.match(twice.message, /same mirror twice/);
    t2.equal(
      oneError(t2, { text: toml(...base, 'mode = "local"', 'upstreams = ["http://127.0.0.1:9"]') }).key,
      'registries[0].upstreams',
      'local mode refuses upstreams too',
    );
    t2.match(
      oneError(t2, { text: toml(...base) }).message,
      /needs an upstream URL \(or upstreams, a list of mirrors\)/,
    );

    const cfg = loadConfig({
      text: toml(
        ...base,
        'upstreams = ["http://127.0.0.1:9/a/", "https://127.0.0.1:10/b"]',
        'fallthrough_on_404 = true',
      ),
    });
    const r = cfg.registries[0]!;
    t2.same(r.upstreams, ['http://127.0.0.1:9/a', 'https://127.0.0.1:10/b'], 'trailing slashes stripped');
    t2.equal(r.upstream, 'http://127.0.0.1:9/a', 'upstream is the first mirror after loading');
    t2.equal(r.fallthrough_on_404, true);
    const single = loadConfig({ text: toml(...base, 'upstream = "http://127.0.0.1:9/x/"') }).registries[0]!;
    t2.same(single.upstreams, ['http://127.0.0.1:9/x'], 'upstream alone is a list of one');
    t2.equal(single.fallthrough_on_404, false, 'fallthrough_on_404 defaults to false');
  });
  tt.test('local mode refuses an upstream it would ignore', async (t2) => {
    const e = oneError(t2, { text: toml(...npmRegistry, 'mode = "local"') });
    t2.equal(e.message, 'hub.toml:4: registries[0].upstream: not used in local mode (remove it or change mode)');
  });
  tt.test('duplicate registry names', async (t2) => {
    const text = toml(
      ...npmRegistry,
      '[[registries]]',
      'name = "go"',
      'type = "go"',
      'upstream = "http://127.0.0.1:9"',
      ...npmRegistry,
    );
    const e = oneError(t2, { text });
    t2.equal(e.message, 'hub.toml:10: registries[2].name: duplicate registry name "npm"');
  });
  tt.test("a plugin's section: checked with the rest, its secrets resolved, its own rules applied", async (t2) => {
    const e = loadError(t2, {
      text: toml('[[flag_sources]]', 'name = "a"', 'secret = ""', 'colour = 1', '[limits]', 'rate_per_ip = "fast"'),
      pluginSections: PLUGIN_SECTIONS,
    });
    t2.same(
      e.issues.map((i) => `${i.line}: ${i.key}`),
      ['3: flag_sources[0].secret', '4: flag_sources[0].colour', '6: limits.rate_per_ip'],
      'one pass reports the section and the core keys',
    );
    t2.match(
      loadConfig({
        text: toml('[[flag_sources]]', 'name = "a"', 'secret_env = "S"'),
        env: { S: 'x' },
        pluginSections: PLUGIN_SECTIONS,
      }).sections.flag_sources,
      [{ name: 'a', secret: 'x' }],
    );
    t2.equal(
      oneError(t2, { text: toml('[[flag_sources]]', 'name = "a"'), pluginSections: PLUGIN_SECTIONS }).message,
      'hub.toml:1: flag_sources[0].secret: missing required key (or secret_env)',
    );
    t2.same(
      loadConfig({ text: '', pluginSections: PLUGIN_SECTIONS }).sections,
      { upstream_audit: {}, flag_sources: [], notifications: {} },
      'absent sections take their defaults',
    );
  });
  tt.test("a plugin cannot take the runtime's section or another plugin's", async (t2) => {
    for (const section of ['server', 'flag_sources']) {
      const taken: ConfigSection = { section, schema: Type.Object({}, { default: {} }) };
      t2.throws(
        () => loadConfig({ text: '', pluginSections: [SOURCES_LIKE, taken] }),
        { name: 'ConfigError', key: section },
        section,
      );
    }
  });
  tt.test(
    'a dotted section is a table inside a runtime section: its keys, secrets and errors keep the full path',
    async (t2) => {
      const inner: ConfigSection = {
        section: 'auth.sso',
        schema: Type.Object(
          {
            client_secret: Type.Optional(Type.String()),
            client_secret_env: Type.Optional(Type.String()),
            scopes: Type.Integer({ default: 1 }),
          },
          { additionalProperties: false, default: {} },
        ),
      };
      const cfg = loadConfig({
        text: toml('[auth]', 'anonymous = ["source:read"]', '[auth.sso]', 'client_secret_env = "S"'),
        env: { S: 'x' },
        pluginSections: [inner],
      });
      t2.same(cfg.auth.anonymous, ['source:read'], "the runtime's [auth] keys stay");
      t2.same(cfg.sections['auth.sso'], { client_secret_env: 'S', client_secret: 'x', scopes: 1 });
      t2.equal(
        oneError(t2, { text: toml('[auth.sso]', 'scopes = "many"'), pluginSections: [inner] }).message,
        'hub.toml:2: auth.sso.scopes: must be an integer (got "many")',
      );
      t2.equal(
        oneError(t2, { text: toml('[auth.sso]', 'client_secret_env = "UNSET"'), pluginSections: [inner] }).key,
        'auth.sso.client_secret_env',
      );
      t2.equal(
        oneError(t2, { text: toml('[auth.sso]', 'scopes = 1') }).key,
        'auth.sso',
        'without the plugin: an unknown key of [auth]',
      );
      for (const section of ['auth.policies', 'nowhere.sso', 'auth.sso.deeper']) {
        const taken: ConfigSection = { section, schema: Type.Object({}, { default: {} }) };
        t2.throws(
          () => loadConfig({ text: '', pluginSections: [taken] }),
          { name: 'ConfigError', key: section },
          section,
        );
      }
    },
  );
  tt.test('a section no loaded plugin declares is an unknown key', async (t2) => {
    t2.equal(oneError(t2, { text: toml('[upstream_audit]', 'enabled = true') }).key, 'upstream_audit');
  });
  tt.test('tls_cert and tls_key together', async (t2) => {
    t2.equal(
      oneError(t2, { text: toml('[server]', 'tls_cert = "c.pem"') }).message,
      'hub.toml:1: server.tls_key: tls_cert and tls_key go together: set both or neither',
    );
    t2.equal(oneError(t2, { text: toml('[server]', 'tls_key = "k.pem"') }).key, 'server.tls_cert');
  });
  tt.test('mysql needs url or url_env; sqlite takes none', async (t2) => {
    t2.equal(
      oneError(t2, { text: toml('[database]', 'client = "mysql"') }).message,
      'hub.toml:1: database.url: client = "mysql" needs url or url_env',
    );
    const cfg = loadConfig({
      text: toml('[database]', 'client = "mysql"', 'url_env = "DB_URL"'),
      env: { DB_URL: 'mysql://u:p@127.0.0.1:3306/hub' },
    });
    t2.equal(cfg.database.url, 'mysql://u:p@127.0.0.1:3306/hub');
    t2.equal(
      oneError(t2, { text: toml('[database]', 'url = "mysql://127.0.0.1/hub"') }).message,
      'hub.toml:2: database.url: only used with client = "mysql"',
    );
  });
  tt.test('storage: s3 needs a bucket and paired keys; fs refuses s3 keys', async (t2) => {
    t2.equal(
      oneError(t2, { text: toml('[storage]', 'kind = "s3"') }).message,
      'hub.toml:1: storage.bucket: kind = "s3" needs a bucket',
    );
    t2.equal(
      oneError(t2, { text: toml('[storage]', 'kind = "s3"', 'bucket = "b"', 'access_key_id = "a"') }).key,
      'storage.secret_access_key',
    );
    const cfg = loadConfig({
      text: toml(
        '[storage]',
        'kind = "s3"',
        'bucket = "b"',
        'endpoint = "http://127.0.0.1:9000"',
        'access_key_id = "a"',
        'secret_access_key_env = "S3_SECRET"',
      ),
      env: { S3_SECRET: 'z' },
    });
    t2.equal(cfg.storage.secret_access_key, 'z');
    t2.equal(
      oneError(t2, { text: toml('[storage]', 'bucket = "b"') }).message,
      'hub.toml:2: storage.bucket: only used with kind = "s3"',
    );
  });
  tt.test('forbidden_networks entries are CIDR ranges', async (t2) => {
    const e = loadError(t2, {
      text: toml(
        '[server]',
        'forbidden_networks = [',
        '  "10.0.0.0/8",',
        '  "10.0.0.1",',
        '  "metadata",',
        '  "fe80::/200",',
        ']',
      ),
    });
    t2.equal(
      e.message,
      [
        'hub.toml:5: server.forbidden_networks[2]: must be an IP address or CIDR range like 169.254.0.0/16 or fe80::/10 (got "metadata")',
        'hub.toml:6: server.forbidden_networks[3]: must be an IP address or CIDR range like 169.254.0.0/16 or fe80::/10 (got "fe80::/200")',
      ].join('\n'),
    );
  });
  tt.test('trusted_proxies: CIDR ranges, and not empty while trust_proxy is on (issue 10)', async (t2) => {
    t2.equal(
      oneError(t2, { text: toml('[server]', 'trusted_proxies = ["proxy.internal"]') }).message,
      'hub.toml:2: server.trusted_proxies[0]: must be an IP address or CIDR range like 169.254.0.0/16 or fe80::/10 (got "proxy.internal")',
    );
    t2.equal(
      oneError(t2, { text: toml('[server]', 'trust_proxy = true', 'trusted_proxies = []') }).message,
      'hub.toml:3: server.trusted_proxies: trust_proxy needs at least one trusted proxy address or range (the proxy in front of hub)',
    );
    t2.same(
      loadConfig({ text: toml('[server]', 'trust_proxy = true') }).server.trusted_proxies,
      ['127.0.0.0/8', '::1'],
      'default: a proxy on this machine',
    );
    t2.same(
      loadConfig({ text: toml('[server]', 'trusted_proxies = []') }).server.trusted_proxies,
      [],
      'empty is fine without trust_proxy',
    );
  });
  tt.test('listen port range', async (t2) => {
    t2.equal(
      oneError(t2, { text: toml('[server]', 'listen = "127.0.0.1:70000"') }).message,
      'hub.toml:2: server.listen: port must be 0..65535 (got 70000)',
    );
    t2.equal(loadConfig({ text: toml('[server]', 'listen = "[::1]:0"') }).server.listen, '[::1]:0');
  });
  tt.test('upstream_auth: a token, or username with password', async (t2) => {
    const base = [...npmRegistry];
    t2.equal(
      oneError(t2, { text: toml(...base, 'upstream_auth = { username = "u" }') }).message,
      'hub.toml:5: registries[0].upstream_auth.password: username and password go together (password may be password_env)',
    );
    t2.equal(
      oneError(t2, { text: toml(...base, 'upstream_auth = { token = "t", username = "u", password = "p" }') }).key,
      'registries[0].upstream_auth',
    );
    t2.equal(
      oneError(t2, { text: toml(...base, 'upstream_auth = {}') }).message,
      'hub.toml:5: registries[0].upstream_auth: needs token (or token_env), or username with password (or password_env)',
    );
    const cfg = loadConfig({
      text: toml(...base, 'upstream_auth = { username = "u", password_env = "PW" }'),
      env: { PW: 'secret' },
    });
    t2.same(cfg.registries[0]?.upstream_auth, { username: 'u', password_env: 'PW', password: 'secret' });
  });
});

t.test('*_env secrets', async (tt) => {
  tt.test('resolved from the given env into the plain key', async (t2) => {
    const cfg = loadConfig({
      text: toml(
        ...npmRegistry,
        'upstream_auth = { token_env = "GH_TOKEN" }',
        '[metrics]',
        'token_env = "METRICS_TOKEN"',
      ),
      env: { GH_TOKEN: 'gh', METRICS_TOKEN: 'mt' },
    });
    t2.equal(cfg.registries[0]?.upstream_auth?.token, 'gh');
    t2.equal(cfg.metrics.token, 'mt');
  });
  tt.test('process.env is the default', async (t2) => {
    process.env.HUB_CONFIG_TEST_TOKEN = 'from-process';
    t2.teardown(() => delete process.env.HUB_CONFIG_TEST_TOKEN);
    const cfg = loadConfig({ text: toml('[metrics]', 'token_env = "HUB_CONFIG_TEST_TOKEN"') });
    t2.equal(cfg.metrics.token, 'from-process');
  });
  tt.test('an unset variable is an error naming the key', async (t2) => {
    const e = oneError(t2, { text: toml(...npmRegistry, 'upstream_auth = { token_env = "GH_TOKEN" }'), env: {} });
    t2.equal(e.message, 'hub.toml:5: registries[0].upstream_auth.token_env: environment variable GH_TOKEN is not set');
    t2.equal(
      oneError(t2, { text: toml('[metrics]', 'token_env = "EMPTY"'), env: { EMPTY: '' } }).key,
      'metrics.token_env',
      'empty counts as unset',
    );
  });
  tt.test('both the key and its _env is an error', async (t2) => {
    const e = oneError(t2, { text: toml('[metrics]', 'token = "a"', 'token_env = "B"'), env: { B: 'b' } });
    t2.equal(e.message, 'hub.toml:3: metrics.token_env: give token or token_env, not both');
  });
});

t.test('kind schemas validate the extra registry keys', async (tt) => {
  const goSchema = Type.Object(
    {
      checksum_db: Type.Optional(Type.String({ pattern: '^https?://', description: 'checksum database' })),
      sumdb_name: Type.String({ default: 'sum.db.test', description: 'name of the checksum database' }),
      mirror: Type.Optional(
        Type.Object(
          { depth: Type.Integer({ default: 2, description: 'depth' }) },
          { additionalProperties: false, description: 'mirror' },
        ),
      ),
      token_env: Type.Optional(Type.String({ description: 'env name' })),
      token: Type.Optional(Type.String({ description: 'token' })),
    },
    { additionalProperties: false },
  );
  const kindSchemas = new Map<string, TSchema>([['go', goSchema]]);
  const goRegistry = ['[[registries]]', 'name = "go"', 'type = "go"', 'upstream = "http://127.0.0.1:9/"'];

  tt.test('accepted and defaulted into extra, not into the base keys', async (t2) => {
    const cfg = loadConfig({
      text: toml(...goRegistry, 'checksum_db = "http://127.0.0.1:9/sumdb"', '[registries.mirror]'),
      kindSchemas,
    });
    const reg = cfg.registries[0];
    t2.same(reg?.extra, { checksum_db: 'http://127.0.0.1:9/sumdb', sumdb_name: 'sum.db.test', mirror: { depth: 2 } });
    t2.notOk('checksum_db' in (reg ?? {}), 'kind keys live only in extra');
    t2.same(
      loadConfig({ text: toml(...goRegistry), kindSchemas }).registries[0]?.extra,
      { sumdb_name: 'sum.db.test' },
      'defaults without any kind key written',
    );
  });
  tt.test('refused: an unknown kind key, suggesting from kind and base keys', async (t2) => {
    t2.equal(
      oneError(t2, { text: toml(...goRegistry, 'checksum_bd = "http://127.0.0.1:9/"'), kindSchemas }).message,
      'hub.toml:5: registries[0].checksum_bd: unknown key (did you mean "checksum_db"?)',
    );
    t2.equal(
      oneError(t2, { text: toml(...goRegistry, 'modes = "proxy"'), kindSchemas }).message,
      'hub.toml:5: registries[0].modes: unknown key (did you mean "mode"?)',
    );
    t2.equal(
      oneError(t2, { text: toml(...goRegistry, '[registries.mirror]', 'deep = 1'), kindSchemas }).message,
      'hub.toml:6: registries[0].mirror.deep: unknown key',
    );
  });
  tt.test('refused: a bad kind value', async (t2) => {
    t2.equal(
      oneError(t2, { text: toml(...goRegistry, 'sumdb_name = 7'), kindSchemas }).message,
      'hub.toml:5: registries[0].sumdb_name: must be a string (got 7)',
    );
  });
  tt.test('refused: kind keys on a type without a kind schema', async (t2) => {
    const text = toml(
      '[[registries]]',
      'name = "n"',
      'type = "npm"',
      'upstream = "http://127.0.0.1:9/"',
      'checksum_db = "http://127.0.0.1:9/"',
    );
    t2.equal(
      oneError(t2, { text, kindSchemas }).message,
      'hub.toml:5: registries[0].checksum_db: unknown key for type "npm"',
    );
  });
  tt.test("an unknown type is not the loader's error", async (t2) => {
    const cfg = loadConfig({
      text: toml('[[registries]]', 'name = "x"', 'type = "no-such-kind"', 'mode = "local"'),
      kindSchemas,
    });
    t2.equal(cfg.registries[0]?.type, 'no-such-kind');
  });
  tt.test("a kind's own *_env keys resolve like the base ones", async (t2) => {
    const cfg = loadConfig({
      text: toml(...goRegistry, 'token_env = "GO_TOKEN"'),
      kindSchemas,
      env: { GO_TOKEN: 'gt' },
    });
    t2.equal(cfg.registries[0]?.extra.token, 'gt');
    t2.equal(
      oneError(t2, { text: toml(...goRegistry, 'token_env = "GO_TOKEN"'), kindSchemas, env: {} }).message,
      'hub.toml:5: registries[0].token_env: environment variable GO_TOKEN is not set',
    );
  });
  tt.test('kind and base problems are reported in one pass', async (t2) => {
    const e = loadError(t2, { text: toml(...goRegistry, 'mode = "proxi"', 'checksum_bd = "x"'), kindSchemas });
    t2.same(
      e.issues.map((i) => i.key),
      ['registries[0].mode', 'registries[0].checksum_bd'],
    );
  });
});

t.test('a TOML syntax error names the file, line and column', async (tt) => {
  const e = loadError(tt, {
    text: toml('[server]', 'listen = "127.0.0.1:8080"', 'trust_proxy = = true'),
    path: 'hub.toml',
  });
  tt.equal(e.line, 3);
  tt.match(e.message, /^hub\.toml:3:\d+: invalid TOML: /);
  tt.equal(e.file, 'hub.toml');
  const dup = loadError(tt, { text: toml('[server]', 'listen = "a:1"', 'listen = "b:2"') });
  tt.match(dup.message, /^hub\.toml:3:\d+: invalid TOML/, 'a duplicate key is a syntax error too');
});

t.test('a missing file is a ConfigError naming it', async (tt) => {
  const path = join(tt.testdir(), 'nope.toml');
  const e = loadError(tt, { path });
  tt.equal(e.message, `${path}: cannot read the configuration file: no such file`);
  tt.equal(e.file, path);
});

t.test("relative paths resolve against the file's folder, or the working directory without a file", async (tt) => {
  const dir = tt.testdir();
  mkdirSync(join(dir, 'etc'));
  const path = join(dir, 'etc', 'hub.toml');
  writeFileSync(
    path,
    toml(
      '[server]',
      'tls_cert = "tls/cert.pem"',
      'tls_key = "../key.pem"',
      '[database]',
      'filename = "db/hub.db"',
      '[storage]',
      'path = "/var/blobs"',
    ),
  );
  const cfg = loadConfig({ path });
  tt.equal(cfg.server.tls_cert, join(dir, 'etc', 'tls', 'cert.pem'));
  tt.equal(cfg.server.tls_key, join(dir, 'key.pem'));
  tt.equal(cfg.database.filename, join(dir, 'etc', 'db', 'hub.db'));
  tt.equal(cfg.storage.path, '/var/blobs');
  tt.equal(loadConfig({ text: '' }).database.filename, resolve(process.cwd(), 'data', 'hub.db'));
  tt.equal(
    loadConfig({ text: toml('[database]', 'filename = ":memory:"'), path }).database.filename,
    ':memory:',
    'SQLite :memory: is not a path',
  );
});

t.test('the locator: lines survive comments, multi-line strings, dotted keys and inline tables', async (tt) => {
  const text = toml(
    '# a comment with [brackets] and key = "value"', // 1
    'server.listen = "127.0.0.1:1"',
    'server.trust_proxy = """',
    '[not a table]',
    'nor = "a key"', // 5
    '"""',
    '[[registries]]',
    'name = "a"',
    'type = "npm"',
    'upstream = "http://127.0.0.1:9/"', // 10
    '[[registries]]',
    "name = 'b'",
    'type = "npm"',
    '"mode" = "proxi"   # quoted key',
    'upstream = "http://127.0.0.1:9/"', // 15
    '[auth]',
    'policies = [',
    '  { effect = "allow", permissions = ["source:read"] },',
    '  { effect = "maybe", permissions = ["source:read"] },',
    ']', // 20
  );
  const e = loadError(tt, { text });
  tt.same(
    e.issues.map((i) => [i.line, i.key]),
    [
      [3, 'server.trust_proxy'],
      [14, 'registries[1].mode'],
      [19, 'auth.policies[1].effect'],
    ],
  );
});

t.test('the schema: a description on every key, additionalProperties false on every object', async (tt) => {
  const problems: string[] = [];
  const walk = (node: Record<string, unknown>, path: string): void => {
    if (node.type === 'object') {
      if (node.additionalProperties !== false) problems.push(`${path}: additionalProperties`);
      for (const [k, v] of Object.entries(node.properties as Record<string, Record<string, unknown>>)) {
        if (typeof v.description !== 'string' || v.description === '') problems.push(`${path}.${k}: description`);
        walk(v, `${path}.${k}`);
      }
    }
    if (node.type === 'array') walk(node.items as Record<string, unknown>, `${path}[]`);
  };
  walk(HubConfigSchema as unknown as Record<string, unknown>, 'hub');
  tt.same(problems, []);
});
