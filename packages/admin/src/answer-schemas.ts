/**
 * Answers of the admin routes beside blocks, users and tokens (schemas.ts) and the package pages
 * (package-schemas.ts): declared on the routes, so the OpenAPI document says what each one returns and
 * the OpenAPI test validates real answers against them.
 */
import Type from 'typebox';
import { permissionSchema } from '@hub/runtime';

const strict = { additionalProperties: false } as const;
const time = Type.String({ format: 'date-time', description: 'RFC 3339 UTC.' });
const nullableText = Type.Union([Type.String(), Type.Null()]);
const count = Type.Integer({ minimum: 0 });
const permission = permissionSchema();
const cursor = Type.Union([Type.String({ pattern: '^[1-9][0-9]*$' }), Type.Null()], {
  description: 'Pass as `cursor` for the next (older) page; null on the last page.',
});

export const AccessCheckAnswer = Type.Object(
  {
    decision: Type.Enum(['allow', 'deny']),
    rule: Type.String({
      description:
        'What decided: `role:<role>`, a policy id, `token_scope`, `auth.anonymous`, `default`, or a refusal before deciding (`token_revoked`, `token_expired`, `user_blocked`).',
    }),
    reason: Type.String(),
    subject: Type.Object(
      {
        user_id: nullableText,
        token_id: nullableText,
        roles: Type.Array(Type.String()),
        token_permissions: Type.Union([Type.Array(permission), Type.Null()], {
          description: "The token's narrowing; null: the user's full set.",
        }),
      },
      {
        ...strict,
        description: 'The subject the described request would have (anonymous: no user, no token, no roles).',
      },
    ),
  },
  strict,
);

export const AuditLogEntry = Type.Object(
  {
    id: Type.Integer({ minimum: 1 }),
    time,
    user_id: nullableText,
    token_id: nullableText,
    ip_address: nullableText,
    action: Type.String({
      description:
        '`download`, `metadata`, `request` (refused before routing), an admin action, `delete`, `retention_reclaim`, ...',
    }),
    outcome: Type.Enum(['allowed', 'denied', 'challenged']),
    registry: Type.Union([Type.String(), Type.Null()], {
      description:
        'The registry that served the request; through a group, the member that answered (the group itself for a merged listing).',
    }),
    via_group: Type.Union([Type.String(), Type.Null()], {
      description: 'The group registry the request came through, or null (decision 0051).',
    }),
    package: nullableText,
    version: nullableText,
    status: Type.Integer({ description: 'The HTTP status answered.' }),
    code: Type.Union([Type.String(), Type.Null()], {
      description: 'The error code (docs/errors.md) when the request failed.',
    }),
    request_id: nullableText,
    detail: nullableText,
  },
  strict,
);
export const AuditLogPage = Type.Object(
  { entries: Type.Array(AuditLogEntry, { description: 'Newest first.' }), next_cursor: cursor },
  strict,
);

const nullableCount = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]);
const ChainProblem = Type.Object(
  {
    kind: Type.Enum(
      [
        'hash_mismatch',
        'link_broken',
        'seq_gap',
        'chain_start',
        'checkpoint_mismatch',
        'checkpoint_signature',
        'checkpoint_unknown_key',
        'rows_missing_at_end',
      ],
      {
        description:
          "hash_mismatch: the row was changed; link_broken: its prev_hash is not the previous row's hash; seq_gap: rows missing before it; chain_start: the chain starts past seq 1 with no checkpoint; checkpoint_*: a checkpoint disagrees with the rows or its signature fails; rows_missing_at_end: a checkpoint names rows past the last one.",
      },
    ),
    chain: Type.String(),
    row_id: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description: 'The audit-log entry id where it shows.',
    }),
    seq: nullableCount,
    checkpoint_id: Type.Optional(Type.Integer({ minimum: 1 })),
    expected: nullableText,
    found: nullableText,
    message: Type.String(),
  },
  strict,
);
export const AuditVerifyAnswer = Type.Object(
  {
    ok: Type.Boolean({ description: 'Every chain verified: no problem found.' }),
    key_id: Type.Union([Type.String(), Type.Null()], {
      description:
        'The checkpoint key signatures were checked with; null when none is configured (signatures unchecked).',
    }),
    chains: Type.Array(
      Type.Object(
        {
          chain: Type.String(),
          ok: Type.Boolean(),
          rows: count,
          checkpoints: count,
          signed_checkpoints: Type.Integer({ minimum: 0, description: 'Checkpoints whose signature verified.' }),
          first_seq: nullableCount,
          last_seq: nullableCount,
          problems: Type.Array(ChainProblem, { description: 'In chain order, the first one first; at most 100.' }),
          problems_total: count,
        },
        strict,
      ),
    ),
    unchained_rows: Type.Integer({
      minimum: 0,
      description: 'Rows written before the chain existed, covered by no hash.',
    }),
  },
  strict,
);

export const PurgeAnswer = Type.Object(
  {
    registry: Type.String(),
    package_name: Type.String({ description: 'The canonical name.' }),
    version: Type.Union([Type.String(), Type.Null()], { description: 'null: every version.' }),
    removed: Type.Integer({ minimum: 0, description: 'Cached files removed.' }),
  },
  strict,
);

export const EventPage = Type.Object(
  {
    events: Type.Array(
      Type.Object(
        {
          id: Type.Integer({ minimum: 1, description: 'Also the X-Hub-Delivery header of its webhook deliveries.' }),
          type: Type.String({ description: 'e.g. package_published, package_disappeared_upstream, config_reloaded.' }),
          registry: nullableText,
          created_at: time,
          data: Type.Object(
            {},
            { description: 'What the event reports; its members depend on the type (packages/webhooks/README.md).' },
          ),
        },
        strict,
      ),
      { description: 'Newest first.' },
    ),
    next_cursor: cursor,
  },
  strict,
);

/** A plugin's section of the health card: its own members, so not described here. */
const section = Type.Object(
  {},
  { description: 'A section a plugin contributes (audit, flags, replicas, upstream_mirrors, ...).' },
);

export const HealthAnswer = Type.Object(
  {
    status: Type.Enum(['ok', 'degraded'], { description: 'degraded: the database does not answer.' }),
    version: Type.String({ description: "hub's version." }),
    database: Type.Enum(['ok', 'unreachable']),
    storage: Type.String({ description: 'The blob store kind ([storage] kind).' }),
    cache: Type.Object(
      { held_bytes: count, max_bytes: Type.Integer({ minimum: 0, description: '[cache] max_bytes; 0: no limit.' }) },
      strict,
    ),
    registries: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          type: Type.String(),
          mode: Type.Enum(['proxy', 'hybrid', 'local', 'group']),
          upstream: Type.Union([Type.String(), Type.Null()], {
            description: 'The upstream base; null in local mode and for a group.',
          }),
          cached: Type.Object({ artifacts: count, bytes: count }, strict),
          members: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  name: Type.String(),
                  mode: Type.Enum(['proxy', 'hybrid', 'local']),
                  state: Type.Enum(['ok', 'degraded', 'down'], {
                    description:
                      "From its upstream mirrors' circuit breakers: ok (none open, or a local registry), degraded (some open), down (all open).",
                  }),
                },
                strict,
              ),
              { description: "A group registry's members, in order (decision 0051)." },
            ),
          ),
        },
        {
          additionalProperties: section,
          description: 'Plus the per-registry part of each plugin section, under its name.',
        },
      ),
    ),
  },
  { additionalProperties: section, description: 'Plus each plugin section, under its name.' },
);

export const LocalPackageList = Type.Object(
  {
    packages: Type.Array(
      Type.Object(
        {
          registry: Type.String(),
          name: Type.String(),
          local_only: Type.Boolean({ description: 'A hybrid registry never asks its upstream about this name.' }),
          created_at: time,
        },
        strict,
      ),
    ),
  },
  strict,
);

export const LocalPackageStatus = Type.Object(
  {
    registry: Type.String(),
    package: Type.String(),
    local_only: Type.Boolean(),
    versions: Type.Array(
      Type.Object(
        {
          version: Type.String(),
          published_at: time,
          publisher: Type.Union([Type.String(), Type.Null()], { description: 'The user who published it.' }),
          yanked: Type.Boolean(),
          deprecated: Type.Union([Type.String(), Type.Null()], { description: 'A deprecation message.' }),
        },
        strict,
      ),
      { description: 'In publishing order.' },
    ),
    tombstones: Type.Array(Type.String(), { description: 'Deleted versions: never published again.' }),
  },
  strict,
);

export const UnpublishAnswer = Type.Object(
  {
    registry: Type.String(),
    package: Type.String(),
    version: Type.String(),
    tombstone: Type.Literal(true, { description: 'The version number stays taken.' }),
  },
  strict,
);

/** A name an administrator claimed for a hybrid registry: its first publish there is taken though the upstream has it. */
export const ClaimAnswer = Type.Object(
  { registry: Type.String(), package: Type.String(), claimed_by: Type.String(), claimed_at: time },
  strict,
);
export const ClaimList = Type.Object({ claims: Type.Array(ClaimAnswer) }, strict);

export const LocalOnlyAnswer = Type.Object(
  { registry: Type.String(), package: Type.String(), local_only: Type.Boolean() },
  strict,
);

const patterns = (description: string) => Type.Optional(Type.Array(Type.String(), { description }));
const ruleFields = {
  name: Type.Optional(Type.String()),
  effect: Type.Enum(['allow', 'deny']),
  permissions: Type.Array(permission, { minItems: 1 }),
  users: patterns('User id globs.'),
  roles: patterns('Role globs.'),
  tokens: patterns('Token id globs.'),
  registries: patterns('Registry name globs; absent: every registry.'),
  packages: patterns('Canonical package name globs; absent: every package.'),
};

/** A policy made through the API. */
export const ApiPolicyAnswer = Type.Object(
  {
    rule: Type.String({ description: 'How decisions name it: `policy:<id>` or `policy:<id>:<name>`.' }),
    source: Type.Literal('api'),
    id: Type.Integer({ minimum: 1, description: 'For DELETE /api/v1/admin/policies/{id}.' }),
    ...ruleFields,
    created_by: Type.String(),
    created_at: time,
  },
  strict,
);

const ConfigPolicyAnswer = Type.Object(
  {
    rule: Type.String({ description: 'Its name, or `auth.policies[<index>]`.' }),
    source: Type.Literal('config', { description: '`[[auth.policies]]` in hub.toml: not editable through the API.' }),
    ...ruleFields,
  },
  strict,
);

export const PolicyList = Type.Object(
  {
    policies: Type.Array(Type.Union([ConfigPolicyAnswer, ApiPolicyAnswer]), {
      description: 'Config policies first, then API ones, oldest first.',
    }),
  },
  strict,
);

export const CleanupAnswer = Type.Object(
  {
    dry_run: Type.Boolean({ description: 'true: a preview, nothing was removed.' }),
    registries: Type.Array(Type.String(), {
      description: 'The registries looked at: each with `[[registries.cleanup]]` rules, or the one asked for.',
    }),
    versions: count,
    bytes: Type.Integer({ minimum: 0, description: 'Bytes removed (a preview: bytes a run would remove).' }),
    items: Type.Array(
      Type.Object(
        {
          registry: Type.String(),
          package: Type.String(),
          version: Type.String(),
          bytes: count,
          files: count,
          published: Type.Boolean({
            description: 'Published to this registry (a rule with include_published): deleted with a tombstone.',
          }),
          rule: Type.Integer({
            minimum: 0,
            description: "The selecting rule's index in the registry's `cleanup` list.",
          }),
          rule_description: Type.String({
            description: 'The rule as text, e.g. `cleanup[0]: packages = *, keep_newest = 3`.',
          }),
          last_downloaded_at: time,
          cached_at: time,
        },
        strict,
      ),
      { description: 'The versions, at most `limit` of them.' },
    ),
    truncated: Type.Boolean({
      description: 'More versions than `limit`: `versions` and `bytes` still count them all.',
    }),
  },
  strict,
);

/** What garbage collection removed (or, in a dry run, would remove). */
export const GarbageAnswer = Type.Object(
  {
    registry: Type.String(),
    dry_run: Type.Boolean(),
    removed: Type.Array(
      Type.Object(
        {
          key: Type.String({ description: 'The file, as the registry serves it (`blobs/<repository>@<digest>`).' }),
          package_name: Type.String(),
          sha256: Type.String(),
          size: Type.Integer({ minimum: 0 }),
          stored_at: Type.String({ format: 'date-time' }),
        },
        strict,
      ),
    ),
    skipped: Type.Array(Type.String(), { description: 'Packages passed over: an upload to them is in flight.' }),
  },
  strict,
);

/** `POST /api/v1/admin/config/reload`: each replica's result (decision 0057). */
export const ConfigReloadAnswer = Type.Object(
  {
    replicas: Type.Array(
      Type.Object(
        {
          id: Type.String({ description: 'The replica (its heartbeat id; `local` without the cluster plugin).' }),
          result: Type.Enum(['applied', 'refused', 'unreachable'], {
            description:
              'applied: the new configuration is in force there; refused: the old one keeps serving; unreachable: it did not answer.',
          }),
          changed_keys: Type.Array(Type.String(), {
            description:
              'Dotted hub.toml keys the reload changed (or would have changed), registries by name: `registries.npm.upstream`.',
          }),
          error: Type.Union([Type.String(), Type.Null()], {
            description:
              'Why it was refused (each problem with its key and line, or the key that needs a restart) or not reached.',
          }),
        },
        strict,
      ),
    ),
  },
  strict,
);

const versionList = (description: string) => Type.Array(Type.String(), { description });

export const RevalidateAnswer = Type.Object(
  {
    registry: Type.String(),
    package: Type.String({ description: 'The canonical name.' }),
    version: Type.Optional(Type.String({ description: 'The version asked about.' })),
    listed: Type.Optional(Type.Boolean({ description: 'Whether the upstream lists `version` now.' })),
    before: versionList('Versions the cached listing named before (sorted, de-duplicated).'),
    after: versionList('Versions the upstream lists now; empty when it answered 404.'),
    added: versionList('In `after`, not in `before`.'),
    gone: versionList('In `before`, not in `after`.'),
    fetched_at: time,
    documents: Type.Array(
      Type.Object(
        {
          key: Type.String({ description: "The listing document's cache key." }),
          outcome: Type.Enum(['replaced', 'unchanged', 'not_found', 'failed'], {
            description:
              '`not_found`: the upstream answered 404/410 and the cached copy stays (the last good listing); `failed`: no valid answer, the cached copy stays.',
          }),
          detail: Type.Optional(Type.String()),
        },
        strict,
      ),
    ),
    effects: Type.Record(Type.String(), Type.Unknown(), {
      description:
        "What plugins did with it, by plugin: `audit` (the upstream audit's findings for held versions that went or came back).",
    }),
  },
  strict,
);
