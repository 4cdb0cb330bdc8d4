/**
 * The hub.toml schema (docs/config.md). The schema is the configuration: defaults,
 * documentation (docs/config.md is rendered from the descriptions here) and validation all come
 * from these TypeBox values, so a key cannot exist in one place and be missing from another.
 *
 * Every object is `additionalProperties: false` (unknown keys are errors, never ignored) and every
 * key carries a `description`. Cross-field rules that JSON Schema says badly (upstream required
 * for proxy mode, tls_cert with tls_key, ...) live in load.ts.
 */
import Type, { type Static, type TOptional, type TSchema, type TString } from 'typebox';
import type { Mode, Permission } from '@hub/contract';
import { DEFAULT_FORBIDDEN_CIDRS } from '@hub/upstream';

export const PERMISSIONS = ['source:read', 'source:write', 'system:read', 'system:write'] as const satisfies readonly Permission[];
export const MODES = ['proxy', 'hybrid', 'local', 'group'] as const satisfies readonly Mode[];
export const AUDIT_POLICIES = ['audit', 'block'] as const;

/** Registry names are path segments (`/proxy/<name>/`), so they stay URL- and file-name-safe. */
export const REGISTRY_NAME_PATTERN = '^[a-z0-9][a-z0-9._-]{0,62}$';
const HTTP_URL_PATTERN = '^https?://[^\\s/?#]+[^\\s]*$';
/** HOST:PORT with a bracketed IPv6 host allowed; port 0 asks the OS for a free port (tests). */
const LISTEN_PATTERN = '^(\\[[0-9A-Fa-f:.]+\\]|[^\\s:\\[\\]]+):[0-9]{1,5}$';

const strict = { additionalProperties: false } as const;

/** A secret given either literally or as the name of an environment variable holding it. */
export function secretPair<K extends string>(key: K, what: string): { [P in K | `${K}_env`]: TOptional<TString> } {
  const pair: Record<string, TOptional<TString>> = {
    [key]: Type.Optional(Type.String({ minLength: 1, description: `${what}. Prefer \`${key}_env\` so the secret stays out of the file.` })),
    [`${key}_env`]: Type.Optional(Type.String({ minLength: 1, description: `Name of the environment variable holding \`${key}\`; after loading, its value is in \`${key}\`.` })),
  };
  return pair as { [P in K | `${K}_env`]: TOptional<TString> };
}

/** `errorMessage` is what load.ts says when the pattern fails; a regex is no help to a user. */
export const httpUrl = (description: string, example: string) =>
  Type.String({ pattern: HTTP_URL_PATTERN, examples: [example], errorMessage: 'must be an http:// or https:// URL', description });
export const NAME_MESSAGE = 'must be 1-63 characters of a-z, 0-9, ".", "_" and "-", starting with a letter or digit';

export const ServerSchema = Type.Object(
  {
    listen: Type.String({
      default: '127.0.0.1:8080',
      pattern: LISTEN_PATTERN,
      examples: ['127.0.0.1:8080'],
      errorMessage: 'must be HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080',
      description: 'Address and port to listen on, HOST:PORT (`[::1]:8080` for IPv6). `hub serve --listen` overrides it.',
    }),
    internal_url: Type.Optional(
      httpUrl(
        'With a shared (MySQL) database: the URL the other replicas reach this one at, on the network between them. The replica fetching an artifact streams it from here to the others\' waiters, so replicas share one upstream fetch; each such request carries the replicas\' shared peer secret, so use https (with tls_cert here and internal_ca_file on the others) or a private network between replicas. Unset: the listen address, with an unspecified host (0.0.0.0, ::) replaced by this machine\'s host name.',
        'http://10.0.0.5:8080',
      ),
    ),
    internal_ca_file: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'PEM file of the CA certificate(s) that sign the replicas\' TLS certificates, for an https internal_url: a replica streaming from another checks its certificate against these instead of the system\'s CAs. Relative to the config file. Unset: the system\'s CAs.',
      }),
    ),
    public_url: Type.Optional(httpUrl('Base URL clients use to reach hub; rewritten metadata points here. Unset: derived from Host / X-Forwarded-* per request. An https URL also makes the console\'s session cookie `Secure` and adds `Strict-Transport-Security` to every answer (as does a request over TLS, or with `X-Forwarded-Proto: https` from a trusted proxy).', 'http://localhost:8080')),
    allowed_hosts: Type.Array(Type.String({ pattern: '^[A-Za-z0-9.\\[\\]:-]{1,300}$', examples: ['hub.internal:8080'], errorMessage: 'must be a host[:port] as clients send it in Host', description: 'A host[:port].' }), {
      default: [],
      description:
        'Without public_url: the Host values (or X-Forwarded-Host from a trusted proxy) hub writes into the URLs it hands out, such as npm tarball links. The listener\'s own loopback names (localhost, 127.0.0.1, [::1] with its port) are always served; any other Host gets 400 on routes that write URLs, so it can neither steer links nor multiply cached documents. Set public_url instead when there is one address.',
    }),
    trust_proxy: Type.Boolean({
      default: false,
      description: 'Honour X-Forwarded-For / X-Forwarded-Proto / X-Forwarded-Host, but only from the proxies in `trusted_proxies`: the client is the first address from the right of X-Forwarded-For that is not a trusted proxy.',
    }),
    trusted_proxies: Type.Array(Type.String({ examples: ['10.0.0.0/8'], description: 'An IPv4 or IPv6 CIDR range, or one address.' }), {
      default: ['127.0.0.0/8', '::1'],
      description: 'With trust_proxy: the proxies whose forwarding headers are believed. A request whose socket peer is not in this list is taken at its socket address, headers ignored. Default: a proxy on the same machine (loopback). May not be empty while trust_proxy is on.',
    }),
    tls_cert: Type.Optional(Type.String({ minLength: 1, description: 'PEM certificate file; with tls_key, hub serves HTTPS (go sends .netrc credentials only over https, terraform needs https). Relative to the config file.' })),
    tls_key: Type.Optional(Type.String({ minLength: 1, description: 'PEM private key file for tls_cert. Relative to the config file.' })),
    forbidden_networks: Type.Array(Type.String({ examples: ['10.0.0.0/8'], description: 'An IPv4 or IPv6 CIDR range, or one address.' }), {
      default: [...DEFAULT_FORBIDDEN_CIDRS],
      description:
        'CIDR ranges no upstream URL may lead to, on its first hop or any redirect: a tarball, download or redirect URL named by an upstream is refused (502) there. A registry\'s own configured origins (upstream or every mirror of upstreams, its kind\'s URL keys, allowed_origins) are exempt. The default covers loopback, RFC 1918, CGNAT, link-local, unspecified, unique-local, multicast and reserved ranges, Teredo and local-use NAT64. An IPv6 address that reaches an IPv4 one through 6to4 (2002::/16) or NAT64\'s well-known prefix (64:ff9b::/96) is refused when that IPv4 address is, whatever the list.',
    }),
    max_connections: Type.Integer({
      default: 10000,
      minimum: 1,
      description:
        'Client connections held open at once. Past it, up to 64 more connections are kept for /healthz and /readyz only (other requests on them get 503), so health checks still reach a full replica; further connections are closed at once by the listener.',
    }),
    max_connections_per_client: Type.Integer({
      default: 256,
      minimum: 1,
      description:
        'Connections one client may hold open at once (an IPv4 address, or an IPv6 /64); further connections from it are closed at once, so one client holding idle sockets cannot use up max_connections. With trust_proxy, connections from trusted_proxies count only against max_connections.',
    }),
    upstream_proxy: Type.Optional(
      Type.String({
        minLength: 1,
        examples: ['http://proxy.internal:3128'],
        description:
          'Forward proxy for every upstream request, `http://[user:password@]host:port` (or `https://`): https upstreams through CONNECT, http ones as proxy requests. Credentials may be in the URL; prefer `upstream_proxy_env`, as they are never logged either way. A registry\'s `proxy` overrides it. Unset: hub honours HTTPS_PROXY, HTTP_PROXY and NO_PROXY (or their lower-case forms). Targets are still checked against `forbidden_networks` before they are sent (decision 0047).',
      }),
    ),
    upstream_proxy_env: Type.Optional(Type.String({ minLength: 1, description: 'Name of the environment variable holding `upstream_proxy` (for a URL with credentials); after loading, its value is in `upstream_proxy`.' })),
    upstream_no_proxy: Type.Array(Type.String({ minLength: 1, examples: ['.corp.example'], description: 'A host, `.domain` or `*.domain` (the domain and everything below it), `host:port`, an IP address or CIDR range, or `*`.' }), {
      default: [],
      description: 'With `upstream_proxy` (or a registry\'s `proxy`): upstream hosts reached directly, not through the proxy. Without `upstream_proxy` (proxies from the environment), NO_PROXY says this instead.',
    }),
    ca_file: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'PEM file of extra certificate authorities trusted for upstream TLS (a company CA that re-signs TLS, a private upstream\'s CA), added to Node\'s bundled CAs and NODE_EXTRA_CA_CERTS, never replacing them. Relative to the config file.',
      }),
    ),
    client_headers_timeout_ms: Type.Integer({
      default: 30000,
      minimum: 100,
      description: 'Time a client has to send its complete request headers; a client trickling them (slowloris) is disconnected with 408.',
    }),
    client_request_timeout_ms: Type.Integer({
      default: 300000,
      minimum: 100,
      description: 'Time a client has to send its whole request, body included (uploads). It does not limit how long a download to the client takes.',
    }),
    drain_secs: Type.Integer({
      default: 5,
      minimum: 0,
      maximum: 3600,
      description:
        'On SIGTERM, before the listener closes: for this many seconds /readyz answers 503 while every request is still served, so a load balancer with active health checks takes the replica out before its connections are refused. 0: close at once. A second SIGTERM or SIGINT ends the wait.',
    }),
    shutdown_grace_ms: Type.Integer({
      default: 10000,
      minimum: 0,
      description:
        'Once the listener closes (after drain_secs on SIGTERM, at once on SIGINT or close()): new connections are refused, /readyz answers 503, and running requests such as downloads have this long to finish, in milliseconds, before their connections are cut. Then the audit log is flushed and hub exits.',
    }),
    log_level: Type.Optional(
      Type.Enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        description: 'The least severe log lines written. Unset: the environment variable HUB_LOG_LEVEL, else `info`. A reload changes it at once.',
      }),
    ),
    connect_timeout_ms: Type.Integer({ default: 10000, minimum: 1, description: 'Upstream TCP/TLS connect timeout in milliseconds.' }),
    headers_timeout_ms: Type.Integer({ default: 10000, minimum: 1, description: 'Time allowed for an upstream to send its response headers, in milliseconds.' }),
    deadline_ms: Type.Integer({ default: 120000, minimum: 1, description: 'Overall deadline for one upstream metadata request, in milliseconds.' }),
    mirror_breaker_failures: Type.Integer({
      default: 5,
      minimum: 1,
      description:
        'Consecutive failures (connection errors, timeouts, 5xx, 429, bodies cut short or failing verification) after which an upstream mirror\'s circuit breaker opens: a registry with `upstreams` then skips that mirror while another is usable.',
    }),
    mirror_breaker_open_ms: Type.Integer({
      default: 30000,
      minimum: 1,
      description: 'How long an open mirror breaker stays open, in milliseconds; then one request probes the mirror (half-open), and a success closes the breaker.',
    }),
  },
  { ...strict, default: {}, description: 'The HTTP listener and how hub talks to upstreams.' },
);

export const DatabaseSchema = Type.Object(
  {
    client: Type.Enum(['sqlite', 'mysql'], { default: 'sqlite', description: '`sqlite` for one instance; `mysql` (or MariaDB) when replicas share state.' }),
    filename: Type.String({ default: './data/hub.db', minLength: 1, description: 'SQLite database file, relative to the config file (`:memory:` for a throw-away database).' }),
    url: Type.Optional(Type.String({ minLength: 1, examples: ['mysql://user:pass@127.0.0.1:3306/hub'], description: 'MySQL connection URL; required with client = "mysql" (or url_env).' })),
    url_env: Type.Optional(Type.String({ minLength: 1, description: 'Name of the environment variable holding the MySQL URL; after loading the value is in `url`.' })),
  },
  { ...strict, default: {}, description: 'Where users, tokens, blocks, flags, the artifact index and the audit log live.' },
);

export const StorageSchema = Type.Object(
  {
    kind: Type.String({
      default: 'fs',
      pattern: '^[a-z][a-z0-9-]*$',
      errorMessage: 'must be a store name (lowercase letters, digits, dashes), like "fs" or "s3"',
      description: '`fs` stores blobs under `path`; `s3` (the `@hub/storage-s3` plugin) in an S3-compatible bucket; another value names a store a loaded plugin provides.',
    }),
    path: Type.String({ default: './data/blobs', minLength: 1, description: 'Blob folder for kind = "fs"; for other kinds, the local spool for downloads in progress (`<path>/tmp`). Relative to the config file.' }),
    bucket: Type.Optional(Type.String({ minLength: 1, description: 'S3 bucket; required with kind = "s3".' })),
    endpoint: Type.Optional(httpUrl('S3 endpoint for S3-compatible stores; unset: the SDK default for the region.', 'http://127.0.0.1:9000')),
    region: Type.Optional(Type.String({ minLength: 1, description: 'S3 region; unset: `us-east-1` with an `endpoint`, else the SDK default (AWS_REGION, the profile).' })),
    prefix: Type.Optional(Type.String({ description: 'Key prefix inside the bucket, e.g. `hub/`.' })),
    force_path_style: Type.Boolean({ default: false, description: 'Address the bucket as `<endpoint>/<bucket>` (most self-hosted S3-compatible stores need this).' }),
    ...secretPair('access_key_id', 'S3 access key id (unset: the SDK default credential chain)'),
    ...secretPair('secret_access_key', 'S3 secret access key'),
  },
  { ...strict, default: {}, description: 'Where artifact bytes (blobs, content-addressed by SHA-256) are kept.' },
);

const nameList = (description: string) => Type.Optional(Type.Array(Type.String({ minLength: 1, description: 'One name or glob pattern.' }), { description }));

export const PolicySchema = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, description: 'A label for the rule, shown as `rule` in access-check answers.' })),
    effect: Type.Enum(['allow', 'deny'], { description: 'Whether the rule grants or refuses the permissions; deny wins over allow.' }),
    permissions: Type.Array(Type.Enum(PERMISSIONS, { description: 'A permission.' }), { minItems: 1, description: 'Permissions the rule applies to.' }),
    users: nameList('User ids the rule applies to.'),
    roles: nameList('Roles the rule applies to (admin, reader, publisher, auditor, operator, or your own).'),
    tokens: nameList('Token ids the rule applies to.'),
    registries: nameList('Registry name glob patterns (`*` matches any run of characters); absent: every registry.'),
    packages: nameList('Package name glob patterns in canonical form (`@acme/*`, `com.acme:*`); absent: every package.'),
  },
  { ...strict, description: 'One access rule. A rule without users, roles and tokens applies to everyone.' },
);

export const AuthSchema = Type.Object(
  {
    anonymous: Type.Array(Type.Enum(PERMISSIONS, { description: 'A permission.' }), { default: [], description: 'Permissions granted to requests without a token. Empty: every request needs a token.' }),
    admin_token_sha256: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{64}$', examples: ['<64 hex digits>'], errorMessage: 'must be 64 hex digits (the SHA-256 of the token)', description: 'SHA-256 (hex) of the bootstrap admin token. The env HUB_ADMIN_TOKEN (plain) also works; with neither, the first start prints a token once.' })),
    policies: Type.Array(PolicySchema, { default: [], description: 'Allow/deny rules on top of roles, as `[[auth.policies]]` tables.' }),
  },
  { ...strict, default: {}, description: 'Who may do what. Tokens are Bearer (or the password of Basic auth).' },
);

export const LimitsSchema = Type.Object(
  {
    packages_per_page: Type.Integer({ default: 50, minimum: 1, maximum: 1000, description: 'Page size of paged admin listings (the disappeared-packages listing).' }),
    rate_per_ip: Type.Number({ default: 50, exclusiveMinimum: 0, description: 'Sustained requests per second per client IP before 429.' }),
    burst_per_ip: Type.Integer({ default: 200, minimum: 1, description: 'Requests one IP may make in a burst above the sustained rate.' }),
    challenges_per_ip: Type.Number({
      default: 20,
      exclusiveMinimum: 0,
      description: 'Sustained 401 challenges per second per client IP (answers to requests that carried no credentials). They cost nothing from `rate_per_ip`, so maven and NuGet, which ask without credentials first, are not charged twice; past this budget such requests get 429.',
    }),
    challenge_burst_per_ip: Type.Integer({ default: 200, minimum: 1, description: 'Challenges one IP may get in a burst above `challenges_per_ip`.' }),
    rate_store: Type.Enum(['memory', 'redis'], {
      default: 'memory',
      description: 'Where the per-IP rate counters live: `memory` counts per replica; `redis` (needs `[redis] url`) shares them between replicas.',
    }),
    rate_store_failure: Type.Enum(['open', 'closed'], {
      default: 'open',
      description: 'While the Redis rate store cannot answer: `open` lets requests through (the limiter protects capacity, not access), `closed` answers 429.',
    }),
    max_json_body_bytes: Type.Integer({ default: 1048576, minimum: 1, description: 'Largest JSON request body accepted (413 above).' }),
    max_metadata_bytes: Type.Integer({ default: 67108864, minimum: 1, description: 'Largest upstream metadata document hub will read.' }),
    max_artifact_bytes: Type.Integer({ default: 4294967296, minimum: 1, description: 'Largest artifact hub will fetch, store or accept on publish.' }),
    flag_hard_block_bytes: Type.Integer({
      default: 67108864,
      minimum: 1024,
      description:
        'Memory for the active `hard_block` flags each replica holds (so they refuse while the database is down), counted as the bytes of their strings plus a fixed overhead per flag. Over it hub refuses to start; a later reload over it keeps the previous set and logs an error.',
    }),
  },
  { ...strict, default: {}, description: 'Sizes and rates that protect the instance.' },
);

export const AuditExportSchema = Type.Object(
  {
    type: Type.Enum(['syslog', 'jsonl'], { description: '`syslog`: RFC 5424 messages over TCP (octet-counting framing, RFC 6587), or TLS with `tls_ca_file`; `jsonl`: one JSON object per line appended to `path`.' }),
    name: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$', description: 'Names the sink\'s delivery cursor in the database. Default: the type and the address or path; set it to keep the cursor when the address changes.' })),
    address: Type.Optional(Type.String({ minLength: 3, description: 'syslog: the receiver as `host:port` (`[v6]:port`).' })),
    tls_ca_file: Type.Optional(Type.String({ minLength: 1, description: 'syslog: connect with TLS, checking the receiver\'s certificate against the CA certificate(s) in this PEM file (relative to the config file).' })),
    path: Type.Optional(Type.String({ minLength: 1, description: 'jsonl: the file rows are appended to (relative to the config file).' })),
    app_name: Type.String({ default: 'hub', pattern: '^[!-~]{1,48}$', description: 'syslog: the APP-NAME of each message.' }),
    facility: Type.Integer({ default: 13, minimum: 0, maximum: 23, description: 'syslog: the facility number (13: log audit; 10: authpriv; 16-23: local0-local7).' }),
  },
  { ...strict, description: 'One export sink of the audit log.' },
);

export const AuditLogSchema = Type.Object(
  {
    enabled: Type.Boolean({ default: true, description: 'Record access events (registry requests, admin actions, refusals) in the database. Off only for measurements.' }),
    flush_interval_ms: Type.Integer({ default: 500, minimum: 10, maximum: 60000, description: 'Events are buffered in memory and written in batches at least this often (and on shutdown).' }),
    batch_rows: Type.Integer({ default: 500, minimum: 1, maximum: 10000, description: 'A buffer holding this many events is written at once.' }),
    retention_days: Type.Integer({
      default: 0,
      minimum: 0,
      description:
        'Events older than this many days are deleted (hourly, once across replicas); 0 keeps them forever. The exposure report only knows fetches still in the log. A chain is cut only up to its newest checkpoint before that age, so it stays verifiable (it then starts at that checkpoint).',
    }),
    chain: Type.Optional(
      Type.String({
      pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$',
      description:
        'The hash chain this replica appends its audit rows to (decision 0065). Replicas sharing a MySQL database should each name their own (its host name, a stable pod name, through `chain_env`): two writers on one chain still keep it intact, but retry each other\'s batches. Default: `local`.',
      }),
    ),
    chain_env: Type.Optional(Type.String({ minLength: 1, description: 'Name of the environment variable holding `chain`; after loading, its value is in `chain`.' })),
    checkpoint_key_file: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'PEM file of an Ed25519 private key (`openssl genpkey -algorithm ed25519`) that signs the chain checkpoints, relative to the config file. Unset: checkpoints are written unsigned (they still anchor a pruned chain, but prove nothing).',
      }),
    ),
    checkpoint_key_id: Type.String({ default: 'default', minLength: 1, maxLength: 128, description: 'The name recorded with each signature, so a verifier knows which key made it.' }),
    checkpoint_every_rows: Type.Integer({ default: 10000, minimum: 1, description: 'A checkpoint is written after this many rows of a chain since the last one...' }),
    checkpoint_every_secs: Type.Integer({ default: 300, minimum: 1, description: '...or after this many seconds, whichever comes first (only when rows were written since), and when hub stops.' }),
    export: Type.Array(AuditExportSchema, { default: [], description: 'Sinks the audit rows are delivered to as they are written, as `[[audit_log.export]]` tables (docs/operations.md).' }),
  },
  { ...strict, default: {}, description: 'The audit log of access events (`GET /api/v1/admin/audit-log`), its hash chain and signed checkpoints (`hub audit verify`), and its exports (docs/security.md, docs/operations.md).' },
);

export const CacheSchema = Type.Object(
  {
    memory_bytes: Type.Integer({
      default: 134217728,
      minimum: 0,
      description:
        'Memory for hot small artifacts and metadata, per process, in bytes: half for artifacts, a quarter for upstream documents, a quarter for their parsed and rewritten forms (estimated). Every tier is bounded in bytes, whatever the number of entries. 0 keeps nothing in memory.',
    }),
    metadata_fetch_concurrency: Type.Integer({ default: 32, minimum: 1, description: 'Upstream metadata documents fetched at once, per process; further refreshes wait (requests for one document always share one fetch).' }),
    memory_max_object_bytes: Type.Integer({ default: 1048576, minimum: 0, description: 'Artifacts larger than this are never kept in memory.' }),
    verify_reads: Type.Boolean({
      default: true,
      description: 'Hash cached artifacts read from disk against their name: on the first read per process of each file (and again when the file changed, or after an hour; decision 0030). A corrupt copy is discarded and fetched again.',
    }),
    fetch_lease_secs: Type.Integer({
      default: 10,
      minimum: 1,
      description:
        'With a shared (MySQL) database: how long the replica fetching an artifact holds it for the others without renewing (renewed every third of it while the fetch runs). A replica that dies mid-fetch is replaced by another after at most this long.',
    }),
    negative_ttl_secs: Type.Integer({ default: 60, minimum: 0, description: 'How long an upstream 404 is remembered before asking again.' }),
    max_bytes: Type.Integer({ default: 0, minimum: 0, description: 'Retention: above this many bytes of cached artifacts, the least recently downloaded are removed down to 90% of it; 0 = no limit. Pinned artifacts (disappeared upstream), held versions (retention holds) and local publications are never removed.' }),
    max_idle_days: Type.Integer({ default: 0, minimum: 0, description: 'Retention: artifacts not downloaded for this many days are removed; 0 = never.' }),
    retention_interval_secs: Type.Integer({ default: 3600, minimum: 60, description: 'How often retention runs (once per interval across replicas).' }),
    cleanup_interval_secs: Type.Integer({ default: 86400, minimum: 60, description: 'How often the registries\' `[[registries.cleanup]]` rules run (once per interval across replicas); only when some registry has rules.' }),
  },
  { ...strict, default: {}, description: 'The artifact cache: its in-process memory tier, and retention.' },
);

export const MetricsSchema = Type.Object(
  {
    ...secretPair('token', 'Bearer token `/metrics` requires (unset: /metrics is open)'),
  },
  { ...strict, default: {}, description: 'The Prometheus endpoint.' },
);

export const PluginsSchema = Type.Object(
  {
    load: Type.Array(Type.String({ minLength: 1, description: 'An exact package name.' }), { default: [], description: 'Extra plugin packages to import, by exact package name.' }),
  },
  { ...strict, default: {}, description: 'Plugins loaded in addition to those the distribution composes.' },
);

export const UpstreamAuthSchema = Type.Object(
  {
    ...secretPair('token', 'Token sent to the upstream'),
    username: Type.Optional(Type.String({ minLength: 1, description: 'User name for Basic auth to the upstream (with password).' })),
    ...secretPair('password', 'Password for Basic auth to the upstream'),
  },
  { ...strict, description: 'Credentials for the upstream (every mirror of `upstreams`): a token, or username with password.' },
);

export const SecuritySchema = Type.Object(
  {
    min_release_age_secs: Type.Integer({
      default: 0,
      minimum: 0,
      description: 'Cool-down: an upstream version published less than this many seconds ago is left out of listings and refused (403). Only for kinds that know publish times (npm, go, cargo, nuget, maven, terraform, pypi, rubygems; the README of each says how); hub refuses to start otherwise.',
    }),
  },
  { ...strict, description: 'Presence turns on the security profile: hard-block flags take effect at once.' },
);

export const CLEANUP_PRERELEASES = ['same', 'only', 'exclude'] as const;

export const CleanupRuleSchema = Type.Object(
  {
    packages: Type.Array(Type.String({ minLength: 1, maxLength: 512, description: 'A glob over canonical package names: `*` any run of characters (also `/`), `?` one character.' }), {
      default: ['*'],
      minItems: 1,
      description: 'The packages the rule covers, as globs over canonical names (any matching): `*` any run of characters (also `/`), `?` one character. Default: every package.',
    }),
    keep_newest: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'Per package, the newest N versions this rule covers (in the kind\'s version order) are kept, whatever any rule selects. Alone (without an age condition) the rule selects every other version it covers.',
      }),
    ),
    unused_days: Type.Optional(Type.Integer({ minimum: 1, description: 'Selects versions none of whose files was downloaded for this many days (the access times retention uses).' })),
    older_than_days: Type.Optional(Type.Integer({ minimum: 1, description: 'Selects versions first cached (or published) more than this many days ago.' })),
    prereleases: Type.Enum(CLEANUP_PRERELEASES, {
      default: 'same',
      description:
        'Which versions the rule covers by the kind\'s pre-release test (maven `-SNAPSHOT`, semver `-rc.1`): `same` both alike, `only` pre-releases and snapshots only, `exclude` releases only. Two rules, one `only` and one `exclude`, handle them separately (and keep_newest counts each set apart).',
    }),
    include_published: Type.Boolean({
      default: false,
      description: 'Also cover versions published to this (local or hybrid) registry. They are deleted as an unpublish does: the version number stays taken (tombstone).',
    }),
  },
  {
    ...strict,
    description:
      'A cleanup rule (`[[registries.cleanup]]`). A version is removed when some rule selects it (every age condition of that rule holds; a rule without one selects all it covers) and no covering rule\'s keep_newest keeps it. Pinned versions (gone upstream), held versions (`retention_holds`) and, unless include_published, published versions are never removed. See docs/operations.md, "Cleanup policies".',
  },
);

export const RegistrySchema = Type.Object(
  {
    name: Type.String({ pattern: REGISTRY_NAME_PATTERN, examples: ['npm'], errorMessage: NAME_MESSAGE, description: 'Served under `/proxy/<name>/`; unique.' }),
    type: Type.String({ minLength: 1, description: 'The kind (npm, maven, go, ...): one of the loaded kind plugins.' }),
    mode: Type.Enum(MODES, {
      default: 'proxy',
      description:
        '`proxy`: upstream fetch plus cache, no publishing; `hybrid`: packages published here first, then the upstream (a name published here is never asked of the upstream); `local`: only packages published here; `group`: one URL over the registries named in `members` (docs/groups.md).',
    }),
    members: Type.Optional(
      Type.Array(Type.String({ pattern: REGISTRY_NAME_PATTERN, errorMessage: NAME_MESSAGE, description: 'The name of another [[registries]] entry.' }), {
        examples: [['npm-internal', 'npm-public']],
        description:
          'mode = "group" only, and required there: 2 to 16 registries of the same type, in order, none of them a group. Listings merge member by member (a version comes from the first member that lists it); any other request goes to the members in order and the first that has it answers. A name published in a `local` or `hybrid` member is asked of that member only (see `allow_upstream_names`).',
      }),
    ),
    allow_upstream_names: Type.Optional(
      Type.Array(Type.String({ minLength: 1, description: 'A package name glob pattern (`*` matches any run of characters), in canonical form.' }), {
        examples: [['@acme/public-*']],
        description:
          'mode = "group" only: names that every member may serve although a `local` or `hybrid` member has published them. Without a match, such a name is asked of the first member that published it and of no upstream member (dependency confusion is closed by default).',
      }),
    ),
    member_rules: Type.Optional(
      Type.Array(
        Type.Object(
          {
            member: Type.String({ pattern: REGISTRY_NAME_PATTERN, errorMessage: NAME_MESSAGE, description: 'One of the group\'s `members`.' }),
            include: Type.Optional(Type.Array(Type.String({ minLength: 1, description: 'A package name glob pattern.' }), { description: 'Only names matching one of these patterns are asked of the member; absent: every name.' })),
            exclude: Type.Optional(Type.Array(Type.String({ minLength: 1, description: 'A package name glob pattern.' }), { description: 'Names matching one of these patterns are never asked of the member (exclude wins over include).' })),
          },
          { ...strict, description: 'Which package names one member may serve.' },
        ),
        {
          description:
            'mode = "group" only: routing per member, as `[[registries.member_rules]]` tables. A name a member\'s rules do not admit is never asked of that member; requests that name no package (search) go to every member. Members without a rule serve every name.',
        },
      ),
    ),
    upstream: Type.Optional(httpUrl('Upstream base URL; proxy and hybrid need it or `upstreams`. What it points at depends on the kind (see the README of the kind).', 'https://upstream.example/base')),
    upstreams: Type.Optional(
      Type.Array(httpUrl('An upstream mirror\'s base URL, as `upstream` would name it.', 'https://mirror-a.example/base'), {
        minItems: 1,
        maxItems: 8,
        description:
          'Instead of `upstream`: an ordered list of mirrors of one upstream (same paths under each base). Each request goes to the first mirror whose circuit breaker is not open and moves to the next after a connection error, a timeout, a 5xx or 429, or an answer found unusable before any byte reached a client (an HTML page, a document or artifact failing its check, an early reset). URLs the upstream\'s documents name under any mirror\'s base are tried the same way. `upstream_auth` is sent to every mirror. Kinds build upstream URLs from the first mirror\'s base. Each mirror\'s breaker shows in /metrics and the admin health card.',
      }),
    ),
    fallthrough_on_404: Type.Boolean({
      default: false,
      description: 'With `upstreams`: a 404 or 410 from a mirror moves to the next mirror instead of being the answer (for mirrors that lag behind).',
    }),
    upstream_auth: Type.Optional(UpstreamAuthSchema),
    proxy: Type.Optional(
      Type.String({
        minLength: 1,
        examples: ['http://proxy.internal:3128', 'none'],
        description: 'Forward proxy for this registry\'s upstream requests, overriding `[server] upstream_proxy` and HTTPS_PROXY/HTTP_PROXY; `"none"` connects directly. `[server] upstream_no_proxy` still applies.',
      }),
    ),
    proxy_env: Type.Optional(Type.String({ minLength: 1, description: 'Name of the environment variable holding `proxy`; after loading, its value is in `proxy`.' })),
    ca_file: Type.Optional(Type.String({ minLength: 1, description: 'PEM file of extra CAs trusted for this registry\'s upstream, in addition to `[server] ca_file` and Node\'s defaults. Relative to the config file.' })),
    client_cert: Type.Optional(Type.String({ minLength: 1, description: 'PEM client certificate hub presents to this registry\'s upstream (mutual TLS), with `client_key`. Relative to the config file.' })),
    client_key: Type.Optional(Type.String({ minLength: 1, description: 'PEM private key (unencrypted) of `client_cert`. Relative to the config file; keep it readable by hub only.' })),
    allowed_origins: Type.Array(httpUrl('An origin, scheme://host[:port].', 'http://10.0.0.5:8081'), {
      default: [],
      description: 'Origins this registry may fetch from although they lie in [server] forbidden_networks, e.g. an internal storage host an internal upstream redirects to.',
    }),
    on_confirmed: Type.Optional(Type.Enum(AUDIT_POLICIES, { description: 'Overrides [upstream_audit] on_confirmed for this registry.' })),
    metadata_ttl_secs: Type.Integer({ default: 300, minimum: 0, description: 'How long listings and metadata are served without revalidation.' }),
    security: Type.Optional(SecuritySchema),
    max_publish_bytes: Type.Integer({ default: 268435456, minimum: 1, description: 'Local and hybrid registries: the largest file one publish may store (413 above it).' }),
    quota_bytes: Type.Integer({ default: 0, minimum: 0, description: 'Local and hybrid registries: bytes of published files the registry may hold (507 once full); 0 = no quota.' }),
    max_bytes: Type.Integer({
      default: 0,
      minimum: 0,
      description:
        'Cached (not published) artifacts of this registry above this many bytes: the least recently downloaded are removed down to 90% of it, in the maintenance job and after a fetch that passes it; 0 = no limit. `[cache] max_bytes` still bounds the whole hub; published files count toward `quota_bytes`.',
    }),
    cleanup: Type.Array(CleanupRuleSchema, { default: [], description: 'Cleanup rules, as `[[registries.cleanup]]` tables, run every `[cache] cleanup_interval_secs` and by `hub cleanup`.' }),
    deploy_expiry_secs: Type.Integer({
      default: 3600,
      minimum: 1,
      description: 'Local and hybrid registries of kinds whose versions arrive as several files (maven, go): a version being deployed belongs to the publisher of its first file until it is complete, or until this many seconds pass without a file from them (403 to anyone else meanwhile).',
    }),
  },
  { ...strict, description: 'One served registry. Keys not listed here belong to the kind (see the kind sections).' },
);

export const HubConfigSchema = Type.Object(
  {
    server: ServerSchema,
    database: DatabaseSchema,
    storage: StorageSchema,
    auth: AuthSchema,
    limits: LimitsSchema,
    cache: CacheSchema,
    audit_log: AuditLogSchema,
    metrics: MetricsSchema,
    plugins: PluginsSchema,
    registries: Type.Array(RegistrySchema, { default: [], description: 'Served registries, as `[[registries]]` tables.' }),
  },
  { ...strict, description: 'hub.toml' },
);

export type ServerConfig = Static<typeof ServerSchema>;
export type DatabaseConfig = Static<typeof DatabaseSchema>;
export type StorageConfig = Static<typeof StorageSchema>;
export type PolicyConfig = Static<typeof PolicySchema>;
export type AuthConfig = Static<typeof AuthSchema>;
export type LimitsConfig = Static<typeof LimitsSchema>;
export type CacheConfig = Static<typeof CacheSchema>;
export type AuditLogConfig = Static<typeof AuditLogSchema>;
export type AuditExportConfig = Static<typeof AuditExportSchema>;
export type MetricsConfig = Static<typeof MetricsSchema>;
export type PluginsConfig = Static<typeof PluginsSchema>;
export type UpstreamAuthConfig = Static<typeof UpstreamAuthSchema>;
export type SecurityConfig = Static<typeof SecuritySchema>;
export type CleanupRuleConfig = Static<typeof CleanupRuleSchema>;

/** A registry entry; `extra` holds the kind's own keys, validated and defaulted by its configSchema. */
export type RegistryConfig = Static<typeof RegistrySchema> & { extra: Record<string, unknown> };

/** `sections` holds the plugins' own sections by name, validated and defaulted by each plugin's schema. */
export type HubConfig = Omit<Static<typeof HubConfigSchema>, 'registries'> & { registries: RegistryConfig[]; sections: Record<string, unknown> };

/**
 * A plugin's own top-level hub.toml section: its schema, and checks across its keys (after `*_env`
 * secrets are resolved), each naming a key path inside the section.
 */
export interface ConfigSection<S extends TSchema = TSchema> {
  section: string;
  schema: S;
  /** Rules across keys; `config` is the rest of the file, for rules that reach outside the section. Keys are the section's. */
  check?(value: Static<S>, config: HubConfig): Array<{ key: ReadonlyArray<string | number>; message: string }>;
}

/** Kind id -> the kind's configSchema (extra [[registries]] keys). */
export type KindSchemas = ReadonlyMap<string, TSchema>;
