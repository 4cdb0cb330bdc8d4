/** Rules across keys, checked once every key has its type: pairs that go together, URLs, ranges, unique names. */
import { parseCidr } from '@hub/upstream';
import type { Issues } from './issues.js';
import { RegistrySchema, type HubConfig, type RegistryConfig } from './schema.js';
import type { KeyPath } from './toml-source.js';

// ---------------------------------------------------------------------------------------------
// Rules across keys

/** `written`: per registry entry, the keys the file itself sets (before defaults), kind keys included. */
export function checkCrossField(issues: Issues, c: HubConfig, written: ReadonlyArray<ReadonlySet<string>> = []): void {
  checkServer(issues, c);
  checkDatabase(issues, c);
  checkStorage(issues, c);
  checkRegistries(issues, c, written);
  checkAuditExports(issues, c);
}

/** Each `[[audit_log.export]]` has the keys of its type, and a cursor name of its own. */
function checkAuditExports(issues: Issues, c: HubConfig): void {
  const names = new Set<string>();
  c.audit_log.export.forEach((x, i) => {
    const at = (key: string): KeyPath => ['audit_log', 'export', i, key];
    if (x.type === 'syslog') {
      if (x.address === undefined) issues.add(at('address'), 'type = "syslog" needs address ("host:port")');
      else if (
        !/^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(x.address) ||
        Number(x.address.slice(x.address.lastIndexOf(':') + 1)) > 65535
      )
        issues.add(at('address'), `must be "host:port" or "[v6]:port" (got ${JSON.stringify(x.address)})`);
      if (x.path !== undefined) issues.add(at('path'), 'only used with type = "jsonl"');
    } else {
      if (x.path === undefined) issues.add(at('path'), 'type = "jsonl" needs path');
      for (const key of ['address', 'tls_ca_file'] as const)
        if (x[key] !== undefined) issues.add(at(key), 'only used with type = "syslog"');
    }
    const name = auditSinkName(x);
    if (names.has(name)) issues.add(at('name'), `two exports share the cursor name "${name}": give each its own name`);
    names.add(name);
  });
}

/** The name an export's delivery cursor is stored under. */
export const auditSinkName = (x: { type: string; name?: string; address?: string; path?: string }): string =>
  x.name ?? `${x.type}:${x.address ?? x.path ?? ''}`.slice(0, 191);

function checkServer(issues: Issues, c: HubConfig): void {
  const s = c.server;
  checkPair(issues, 'server', s, 'tls_cert', 'tls_key');
  if (s.public_url !== undefined) checkUrl(issues, ['server', 'public_url'], s.public_url);
  const port = Number(s.listen.slice(s.listen.lastIndexOf(':') + 1));
  if (port > 65535) issues.add(['server', 'listen'], `port must be 0..65535 (got ${port})`);
  for (const key of ['forbidden_networks', 'trusted_proxies'] as const)
    s[key].forEach((cidr, i) => {
      if (!isCidr(cidr))
        issues.add(
          ['server', key, i],
          `must be an IP address or CIDR range like 169.254.0.0/16 or fe80::/10 (got ${JSON.stringify(cidr)})`,
        );
    });
  if (s.upstream_proxy !== undefined)
    checkProxyUrl(
      issues,
      ['server', s.upstream_proxy_env === undefined ? 'upstream_proxy' : 'upstream_proxy_env'],
      s.upstream_proxy,
      false,
    );
  if (s.trust_proxy && s.trusted_proxies.length === 0)
    issues.add(
      ['server', 'trusted_proxies'],
      'trust_proxy needs at least one trusted proxy address or range (the proxy in front of hub)',
    );
}

function checkDatabase(issues: Issues, c: HubConfig): void {
  const d = c.database;
  if (d.client === 'mysql' && d.url === undefined)
    issues.add(['database', 'url'], 'client = "mysql" needs url or url_env');
  if (d.client === 'sqlite' && d.url !== undefined)
    issues.add(['database', d.url_env === undefined ? 'url' : 'url_env'], 'only used with client = "mysql"');
}

const S3_KEYS = [
  'bucket',
  'endpoint',
  'region',
  'prefix',
  'access_key_id',
  'access_key_id_env',
  'secret_access_key',
  'secret_access_key_env',
] as const;

function checkStorage(issues: Issues, c: HubConfig): void {
  const s = c.storage;
  if (s.kind === 's3') {
    if (s.bucket === undefined) issues.add(['storage', 'bucket'], 'kind = "s3" needs a bucket');
    if (s.endpoint !== undefined) checkUrl(issues, ['storage', 'endpoint'], s.endpoint);
    checkPair(issues, 'storage', s, 'access_key_id', 'secret_access_key');
    return;
  }
  for (const key of S3_KEYS) {
    if (s[key] !== undefined) issues.add(['storage', key], 'only used with kind = "s3"');
  }
}

function checkRegistries(issues: Issues, c: HubConfig, written: ReadonlyArray<ReadonlySet<string>>): void {
  const names = new Set<string>();
  c.registries.forEach((r, i) => {
    if (names.has(r.name)) issues.add(['registries', i, 'name'], `duplicate registry name ${JSON.stringify(r.name)}`);
    names.add(r.name);
  });
  c.registries.forEach((r, i) => {
    const at = (...keys: Array<string | number>): KeyPath => ['registries', i, ...keys];
    if (r.mode === 'group') return checkGroup(issues, c, i, written[i] ?? new Set());
    for (const key of GROUP_KEYS) if (r[key] !== undefined) issues.add(at(key), 'only used with mode = "group"');
    if (r.mode === 'local') {
      // Silently ignoring an upstream would hide a mode typo'd into "local"; say so instead.
      for (const key of [
        'upstream',
        'upstreams',
        'upstream_auth',
        'proxy',
        'ca_file',
        'client_cert',
        'client_key',
      ] as const)
        if (r[key] !== undefined) issues.add(at(key), 'not used in local mode (remove it or change mode)');
      return;
    }
    if (r.upstream !== undefined && r.upstreams !== undefined)
      issues.add(at('upstreams'), 'give upstream (one URL) or upstreams (a list of mirrors), not both');
    else if (r.upstream === undefined && r.upstreams === undefined)
      issues.add(
        at('upstream'),
        `missing required key: mode "${r.mode}" needs an upstream URL (or upstreams, a list of mirrors)`,
      );
    if (r.upstream !== undefined) checkUrl(issues, at('upstream'), r.upstream);
    const seen = new Set<string>();
    r.upstreams?.forEach((u, j) => {
      checkUrl(issues, at('upstreams', j), u);
      const base = u.replace(/\/+$/, '');
      if (seen.has(base)) issues.add(at('upstreams', j), `names the same mirror twice (${JSON.stringify(u)})`);
      seen.add(base);
    });
    if (r.upstream_auth !== undefined) checkUpstreamAuth(issues, at('upstream_auth'), r.upstream_auth);
    if (r.proxy !== undefined)
      checkProxyUrl(issues, at(r.proxy_env === undefined ? 'proxy' : 'proxy_env'), r.proxy, true);
    if ((r.client_cert === undefined) !== (r.client_key === undefined))
      issues.add(
        at(r.client_cert === undefined ? 'client_cert' : 'client_key'),
        'client_cert and client_key go together: set both or neither',
      );
    r.allowed_origins.forEach((o, j) => {
      if (!isOrigin(o))
        issues.add(at('allowed_origins', j), `must be an origin only, scheme://host[:port] (got ${JSON.stringify(o)})`);
    });
  });
}

const RegistryKeys = RegistrySchema.properties;
const GROUP_KEYS = ['members', 'allow_upstream_names', 'member_rules'] as const;
const MAX_MEMBERS = 16;
/** Keys of a registry that only its members use: a group has no upstream and takes no publishes. */
const MEMBER_ONLY_KEYS = [
  'upstream',
  'upstreams',
  'upstream_auth',
  'proxy',
  'proxy_env',
  'ca_file',
  'client_cert',
  'client_key',
  'allowed_origins',
  'fallthrough_on_404',
  'on_confirmed',
  'metadata_ttl_secs',
  'security',
  'max_publish_bytes',
  'quota_bytes',
  'deploy_expiry_secs',
];

/** A group (decision 0051): 2..16 existing members of its type, none a group, each once; rules name members; no member-only key. */
function checkGroup(issues: Issues, c: HubConfig, i: number, written: ReadonlySet<string>): void {
  const r = c.registries[i]!;
  const at = (...keys: Array<string | number>): KeyPath => ['registries', i, ...keys];
  for (const key of written) {
    if (MEMBER_ONLY_KEYS.includes(key))
      issues.add(
        at(key),
        'not used by a group registry: set it on its members (a group has no upstream and takes no publishes)',
      );
    else if (!(key in RegistryKeys))
      issues.add(at(key), `not used by a group registry: the ${r.type} kind's keys belong on its members`);
  }
  const members = r.members;
  if (members === undefined)
    return issues.add(
      at('members'),
      'missing required key: mode "group" needs members, the registries it serves in order (e.g. members = ["npm-internal", "npm-public"])',
    );
  if (members.length < 2 || members.length > MAX_MEMBERS)
    issues.add(at('members'), `a group has 2 to ${MAX_MEMBERS} members (got ${members.length})`);
  const seen = new Set<string>();
  members.forEach((name, j) => {
    const member = c.registries.find((m) => m.name === name);
    if (seen.has(name)) issues.add(at('members', j), `names "${name}" twice`);
    else if (name === r.name) issues.add(at('members', j), 'a group cannot be its own member');
    else if (!member)
      issues.add(at('members', j), `no registry named "${name}" (members are other [[registries]] entries)`);
    else if (member.mode === 'group')
      issues.add(at('members', j), `"${name}" is a group: a group's members are proxy, hybrid or local registries`);
    else if (member.type !== r.type)
      issues.add(at('members', j), `"${name}" is of type "${member.type}", the group of type "${r.type}"`);
    seen.add(name);
  });
  const ruled = new Set<string>();
  r.member_rules?.forEach((rule, j) => {
    if (!members.includes(rule.member))
      issues.add(at('member_rules', j, 'member'), `"${rule.member}" is not one of this group's members`);
    else if (ruled.has(rule.member))
      issues.add(
        at('member_rules', j, 'member'),
        `"${rule.member}" has a rule already: give it one table with both include and exclude`,
      );
    ruled.add(rule.member);
  });
}

function isOrigin(text: string): boolean {
  try {
    const u = new URL(text);
    return u.href === `${u.origin}/`;
  } catch {
    return false;
  }
}

function checkUpstreamAuth(issues: Issues, path: KeyPath, a: NonNullable<RegistryConfig['upstream_auth']>): void {
  const hasToken = a.token !== undefined;
  const hasUser = a.username !== undefined;
  const hasPassword = a.password !== undefined;
  if (hasToken && (hasUser || hasPassword)) issues.add(path, 'give either token or username with password, not both');
  else if (hasUser !== hasPassword)
    issues.add(
      [...path, hasUser ? 'password' : 'username'],
      'username and password go together (password may be password_env)',
    );
  else if (!hasToken && !hasUser)
    issues.add(path, 'needs token (or token_env), or username with password (or password_env)');
}

/** Two keys that go together: the missing one is named when only one is set. */
function checkPair<T>(issues: Issues, section: string, table: T, a: keyof T & string, b: keyof T & string): void {
  if ((table[a] === undefined) !== (table[b] === undefined))
    issues.add([section, table[a] === undefined ? a : b], `${a} and ${b} go together: set both or neither`);
}

/**
 * A forward proxy URL: http(s), a host, nothing after the port. The value may hold a password, so the message
 * never repeats it.
 */
function checkProxyUrl(issues: Issues, path: KeyPath, value: string, noneAllowed: boolean): void {
  if (noneAllowed && value === 'none') return;
  let ok = false;
  try {
    const u = new URL(value);
    ok =
      (u.protocol === 'http:' || u.protocol === 'https:') &&
      u.hostname !== '' &&
      (u.pathname === '/' || u.pathname === '') &&
      u.search === '' &&
      u.hash === '';
  } catch {
    ok = false;
  }
  if (!ok)
    issues.add(
      path,
      `must be a proxy URL like http://proxy.internal:3128 or http://user:password@proxy.internal:3128${noneAllowed ? ', or "none"' : ''} (the value is not repeated here: it may hold a password)`,
    );
}

function checkUrl(issues: Issues, path: KeyPath, url: string): void {
  if (!URL.canParse(url)) issues.add(path, `is not a valid URL (got ${JSON.stringify(url)})`);
}

/** An address or a CIDR range; a bare address is a single host, as the redirect guard reads it. */
function isCidr(text: string): boolean {
  try {
    parseCidr(text);
    return true;
  } catch {
    return false;
  }
}
