/** `[server]`: the HTTP listener and how hub talks to upstreams. */
import Type from 'typebox';
import { DEFAULT_FORBIDDEN_CIDRS } from '@hub/upstream';
import { strict, httpUrl, LISTEN_PATTERN } from '../schema-helpers.js';

export const ServerSchema = Type.Object(
  {
    listen: Type.String({
      default: '127.0.0.1:8080',
      pattern: LISTEN_PATTERN,
      examples: ['127.0.0.1:8080'],
      errorMessage: 'must be HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080',
      description:
        'Address and port to listen on, HOST:PORT (`[::1]:8080` for IPv6). `hub serve --listen` overrides it.',
    }),
    internal_url: Type.Optional(
      httpUrl(
        "With a shared (MySQL) database: the URL the other replicas reach this one at, on the network between them. The replica fetching an artifact streams it from here to the others' waiters, so replicas share one upstream fetch; each such request carries the replicas' shared peer secret, so use https (with tls_cert here and internal_ca_file on the others) or a private network between replicas. Unset: the listen address, with an unspecified host (0.0.0.0, ::) replaced by this machine's host name.",
        'http://10.0.0.5:8080',
      ),
    ),
    internal_ca_file: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "PEM file of the CA certificate(s) that sign the replicas' TLS certificates, for an https internal_url: a replica streaming from another checks its certificate against these instead of the system's CAs. Relative to the config file. Unset: the system's CAs.",
      }),
    ),
    public_url: Type.Optional(
      httpUrl(
        "Base URL clients use to reach hub; rewritten metadata points here. Unset: derived from Host / X-Forwarded-* per request. An https URL also makes the console's session cookie `Secure` and adds `Strict-Transport-Security` to every answer (as does a request over TLS, or with `X-Forwarded-Proto: https` from a trusted proxy).",
        'http://localhost:8080',
      ),
    ),
    allowed_hosts: Type.Array(
      Type.String({
        pattern: '^[A-Za-z0-9.\\[\\]:-]{1,300}$',
        examples: ['hub.internal:8080'],
        errorMessage: 'must be a host[:port] as clients send it in Host',
        description: 'A host[:port].',
      }),
      {
        default: [],
        description:
          "Without public_url: the Host values (or X-Forwarded-Host from a trusted proxy) hub writes into the URLs it hands out, such as npm tarball links. The listener's own loopback names (localhost, 127.0.0.1, [::1] with its port) are always served; any other Host gets 400 on routes that write URLs, so it can neither steer links nor multiply cached documents. Set public_url instead when there is one address.",
      },
    ),
    trust_proxy: Type.Boolean({
      default: false,
      description:
        'Honour X-Forwarded-For / X-Forwarded-Proto / X-Forwarded-Host, but only from the proxies in `trusted_proxies`: the client is the first address from the right of X-Forwarded-For that is not a trusted proxy.',
    }),
    trusted_proxies: Type.Array(
      Type.String({ examples: ['10.0.0.0/8'], description: 'An IPv4 or IPv6 CIDR range, or one address.' }),
      {
        default: ['127.0.0.0/8', '::1'],
        description:
          'With trust_proxy: the proxies whose forwarding headers are believed. A request whose socket peer is not in this list is taken at its socket address, headers ignored. Default: a proxy on the same machine (loopback). May not be empty while trust_proxy is on.',
      },
    ),
    tls_cert: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'PEM certificate file; with tls_key, hub serves HTTPS (go sends .netrc credentials only over https, terraform needs https). Relative to the config file.',
      }),
    ),
    tls_key: Type.Optional(
      Type.String({ minLength: 1, description: 'PEM private key file for tls_cert. Relative to the config file.' }),
    ),
    forbidden_networks: Type.Array(
      Type.String({ examples: ['10.0.0.0/8'], description: 'An IPv4 or IPv6 CIDR range, or one address.' }),
      {
        default: [...DEFAULT_FORBIDDEN_CIDRS],
        description:
          "CIDR ranges no upstream URL may lead to, on its first hop or any redirect: a tarball, download or redirect URL named by an upstream is refused (502) there. A registry's own configured origins (upstream or every mirror of upstreams, its kind's URL keys, allowed_origins) are exempt. The default covers loopback, RFC 1918, CGNAT, link-local, unspecified, unique-local, multicast and reserved ranges, Teredo and local-use NAT64. An IPv6 address that reaches an IPv4 one through 6to4 (2002::/16) or NAT64's well-known prefix (64:ff9b::/96) is refused when that IPv4 address is, whatever the list.",
      },
    ),
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
          "Forward proxy for every upstream request, `http://[user:password@]host:port` (or `https://`): https upstreams through CONNECT, http ones as proxy requests. Credentials may be in the URL; prefer `upstream_proxy_env`, as they are never logged either way. A registry's `proxy` overrides it. Unset: hub honours HTTPS_PROXY, HTTP_PROXY and NO_PROXY (or their lower-case forms). Targets are still checked against `forbidden_networks` before they are sent (decision 0047).",
      }),
    ),
    upstream_proxy_env: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'Name of the environment variable holding `upstream_proxy` (for a URL with credentials); after loading, its value is in `upstream_proxy`.',
      }),
    ),
    upstream_no_proxy: Type.Array(
      Type.String({
        minLength: 1,
        examples: ['.corp.example'],
        description:
          'A host, `.domain` or `*.domain` (the domain and everything below it), `host:port`, an IP address or CIDR range, or `*`.',
      }),
      {
        default: [],
        description:
          "With `upstream_proxy` (or a registry's `proxy`): upstream hosts reached directly, not through the proxy. Without `upstream_proxy` (proxies from the environment), NO_PROXY says this instead.",
      },
    ),
    ca_file: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "PEM file of extra certificate authorities trusted for upstream TLS (a company CA that re-signs TLS, a private upstream's CA), added to Node's bundled CAs and NODE_EXTRA_CA_CERTS, never replacing them. Relative to the config file.",
      }),
    ),
    client_headers_timeout_ms: Type.Integer({
      default: 30000,
      minimum: 100,
      description:
        'Time a client has to send its complete request headers; a client trickling them (slowloris) is disconnected with 408.',
    }),
    client_request_timeout_ms: Type.Integer({
      default: 300000,
      minimum: 100,
      description:
        'Time a client has to send its whole request, body included (uploads). It does not limit how long a download to the client takes.',
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
        description:
          'The least severe log lines written. Unset: the environment variable HUB_LOG_LEVEL, else `info`. A reload changes it at once.',
      }),
    ),
    connect_timeout_ms: Type.Integer({
      default: 10000,
      minimum: 1,
      description: 'Upstream TCP/TLS connect timeout in milliseconds.',
    }),
    headers_timeout_ms: Type.Integer({
      default: 10000,
      minimum: 1,
      description: 'Time allowed for an upstream to send its response headers, in milliseconds.',
    }),
    deadline_ms: Type.Integer({
      default: 120000,
      minimum: 1,
      description: 'Overall deadline for one upstream metadata request, in milliseconds.',
    }),
    mirror_breaker_failures: Type.Integer({
      default: 5,
      minimum: 1,
      description:
        "Consecutive failures (connection errors, timeouts, 5xx, 429, bodies cut short or failing verification) after which an upstream mirror's circuit breaker opens: a registry with `upstreams` then skips that mirror while another is usable.",
    }),
    mirror_breaker_open_ms: Type.Integer({
      default: 30000,
      minimum: 1,
      description:
        'How long an open mirror breaker stays open, in milliseconds; then one request probes the mirror (half-open), and a success closes the breaker.',
    }),
  },
  { ...strict, default: {}, description: 'The HTTP listener and how hub talks to upstreams.' },
);
