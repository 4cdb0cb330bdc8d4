/** `[[registries]]`: one served registry (the kind's own keys are validated by its configSchema). */
import Type from 'typebox';
import {
  strict,
  secretPair,
  httpUrl,
  MODES,
  AUDIT_POLICIES,
  REGISTRY_NAME_PATTERN,
  NAME_MESSAGE,
} from '../schema-helpers.js';
import { CleanupRuleSchema } from './cleanup-rules.js';

export const UpstreamAuthSchema = Type.Object(
  {
    ...secretPair('token', 'Token sent to the upstream'),
    username: Type.Optional(
      Type.String({ minLength: 1, description: 'User name for Basic auth to the upstream (with password).' }),
    ),
    ...secretPair('password', 'Password for Basic auth to the upstream'),
  },
  {
    ...strict,
    description: 'Credentials for the upstream (every mirror of `upstreams`): a token, or username with password.',
  },
);

export const SecuritySchema = Type.Object(
  {
    min_release_age_secs: Type.Integer({
      default: 0,
      minimum: 0,
      description:
        'Cool-down: an upstream version published less than this many seconds ago is left out of listings and refused (403). Only for kinds that know publish times (npm, go, cargo, nuget, maven, terraform, pypi, rubygems; the README of each says how); hub refuses to start otherwise.',
    }),
  },
  { ...strict, description: 'Presence turns on the security profile: hard-block flags take effect at once.' },
);

export const RegistrySchema = Type.Object(
  {
    name: Type.String({
      pattern: REGISTRY_NAME_PATTERN,
      examples: ['npm'],
      errorMessage: NAME_MESSAGE,
      description: 'Served under `/proxy/<name>/`; unique.',
    }),
    type: Type.String({ minLength: 1, description: 'The kind (npm, maven, go, ...): one of the loaded kind plugins.' }),
    mode: Type.Enum(MODES, {
      default: 'proxy',
      description:
        '`proxy`: upstream fetch plus cache, no publishing; `hybrid`: packages published here first, then the upstream (a name published here is never asked of the upstream); `local`: only packages published here; `group`: one URL over the registries named in `members` (docs/groups.md).',
    }),
    members: Type.Optional(
      Type.Array(
        Type.String({
          pattern: REGISTRY_NAME_PATTERN,
          errorMessage: NAME_MESSAGE,
          description: 'The name of another [[registries]] entry.',
        }),
        {
          examples: [['npm-internal', 'npm-public']],
          description:
            'mode = "group" only, and required there: 2 to 16 registries of the same type, in order, none of them a group. Listings merge member by member (a version comes from the first member that lists it); any other request goes to the members in order and the first that has it answers. A name published in a `local` or `hybrid` member is asked of that member only (see `allow_upstream_names`).',
        },
      ),
    ),
    allow_upstream_names: Type.Optional(
      Type.Array(
        Type.String({
          minLength: 1,
          description: 'A package name glob pattern (`*` matches any run of characters), in canonical form.',
        }),
        {
          examples: [['@acme/public-*']],
          description:
            'mode = "group" only: names that every member may serve although a `local` or `hybrid` member has published them. Without a match, such a name is asked of the first member that published it and of no upstream member (dependency confusion is closed by default).',
        },
      ),
    ),
    member_rules: Type.Optional(
      Type.Array(
        Type.Object(
          {
            member: Type.String({
              pattern: REGISTRY_NAME_PATTERN,
              errorMessage: NAME_MESSAGE,
              description: "One of the group's `members`.",
            }),
            include: Type.Optional(
              Type.Array(Type.String({ minLength: 1, description: 'A package name glob pattern.' }), {
                description: 'Only names matching one of these patterns are asked of the member; absent: every name.',
              }),
            ),
            exclude: Type.Optional(
              Type.Array(Type.String({ minLength: 1, description: 'A package name glob pattern.' }), {
                description:
                  'Names matching one of these patterns are never asked of the member (exclude wins over include).',
              }),
            ),
          },
          { ...strict, description: 'Which package names one member may serve.' },
        ),
        {
          description:
            'mode = "group" only: routing per member, as `[[registries.member_rules]]` tables. A name a member\'s rules do not admit is never asked of that member; requests that name no package (search) go to every member. Members without a rule serve every name.',
        },
      ),
    ),
    upstream: Type.Optional(
      httpUrl(
        'Upstream base URL; proxy and hybrid need it or `upstreams`. What it points at depends on the kind (see docs/config.md).',
        'https://upstream.example/base',
      ),
    ),
    upstreams: Type.Optional(
      Type.Array(
        httpUrl("An upstream mirror's base URL, as `upstream` would name it.", 'https://mirror-a.example/base'),
        {
          minItems: 1,
          maxItems: 8,
          description:
            "Instead of `upstream`: an ordered list of mirrors of one upstream (same paths under each base). Each request goes to the first mirror whose circuit breaker is not open and moves to the next after a connection error, a timeout, a 5xx or 429, or an answer found unusable before any byte reached a client (an HTML page, a document or artifact failing its check, an early reset). URLs the upstream's documents name under any mirror's base are tried the same way. `upstream_auth` is sent to every mirror. Kinds build upstream URLs from the first mirror's base. Each mirror's breaker shows in /metrics and the admin health card.",
        },
      ),
    ),
    fallthrough_on_404: Type.Boolean({
      default: false,
      description:
        'With `upstreams`: a 404 or 410 from a mirror moves to the next mirror instead of being the answer (for mirrors that lag behind).',
    }),
    upstream_auth: Type.Optional(UpstreamAuthSchema),
    proxy: Type.Optional(
      Type.String({
        minLength: 1,
        examples: ['http://proxy.internal:3128', 'none'],
        description:
          'Forward proxy for this registry\'s upstream requests, overriding `[server] upstream_proxy` and HTTPS_PROXY/HTTP_PROXY; `"none"` connects directly. `[server] upstream_no_proxy` still applies.',
      }),
    ),
    proxy_env: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Name of the environment variable holding `proxy`; after loading, its value is in `proxy`.',
      }),
    ),
    ca_file: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "PEM file of extra CAs trusted for this registry's upstream, in addition to `[server] ca_file` and Node's defaults. Relative to the config file.",
      }),
    ),
    client_cert: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "PEM client certificate hub presents to this registry's upstream (mutual TLS), with `client_key`. Relative to the config file.",
      }),
    ),
    client_key: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'PEM private key (unencrypted) of `client_cert`. Relative to the config file; keep it readable by hub only.',
      }),
    ),
    allowed_origins: Type.Array(httpUrl('An origin, scheme://host[:port].', 'http://10.0.0.5:8081'), {
      default: [],
      description:
        'Origins this registry may fetch from although they lie in [server] forbidden_networks, e.g. an internal storage host an internal upstream redirects to.',
    }),
    on_confirmed: Type.Optional(
      Type.Enum(AUDIT_POLICIES, { description: 'Overrides [upstream_audit] on_confirmed for this registry.' }),
    ),
    metadata_ttl_secs: Type.Integer({
      default: 300,
      minimum: 0,
      description: 'How long listings and metadata are served without revalidation.',
    }),
    security: Type.Optional(SecuritySchema),
    max_publish_bytes: Type.Integer({
      default: 268435456,
      minimum: 1,
      description: 'Local and hybrid registries: the largest file one publish may store (413 above it).',
    }),
    quota_bytes: Type.Integer({
      default: 0,
      minimum: 0,
      description:
        'Local and hybrid registries: bytes of published files the registry may hold (507 once full); 0 = no quota.',
    }),
    max_bytes: Type.Integer({
      default: 0,
      minimum: 0,
      description:
        'Cached (not published) artifacts of this registry above this many bytes: the least recently downloaded are removed down to 90% of it, in the maintenance job and after a fetch that passes it; 0 = no limit. `[cache] max_bytes` still bounds the whole hub; published files count toward `quota_bytes`.',
    }),
    cleanup: Type.Array(CleanupRuleSchema, {
      default: [],
      description:
        'Cleanup rules, as `[[registries.cleanup]]` tables, run every `[cache] cleanup_interval_secs` and by `hub cleanup`.',
    }),
    deploy_expiry_secs: Type.Integer({
      default: 3600,
      minimum: 1,
      description:
        'Local and hybrid registries of kinds whose versions arrive as several files (maven, go): a version being deployed belongs to the publisher of its first file until it is complete, or until this many seconds pass without a file from them (403 to anyone else meanwhile).',
    }),
  },
  { ...strict, description: 'One served registry. Keys not listed here belong to the kind (see the kind sections).' },
);
