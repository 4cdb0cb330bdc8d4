/** Answers of the upstream routes, as typebox schemas: declared on the routes and so in the OpenAPI document. */
import { Type } from 'typebox';

const strict = { additionalProperties: false } as const;
const time = Type.String({ format: 'date-time' });
const maybe = <T extends Parameters<typeof Type.Union>[0][number]>(s: T) => Type.Union([s, Type.Null()]);

/** An upstream audit row (docs/openapi.json), with the rung and detail of the last probe. */
export const AuditRowAnswer = Type.Object(
  {
    registry: Type.String(),
    package_name: Type.String(),
    version: Type.String(),
    state: Type.Enum(['missing', 'disappeared']),
    first_missed_at: time,
    last_checked_at: time,
    confirmed_at: maybe(time),
    misses: Type.Integer({ minimum: 0 }),
    policy: Type.Enum(['audit', 'block']),
    rung: maybe(Type.String()),
    detail: maybe(Type.String()),
  },
  strict,
);

export const AuditRowPage = Type.Object(
  {
    rows: Type.Array(AuditRowAnswer),
    page: Type.Integer({ minimum: 1 }),
    per_page: Type.Integer({ minimum: 1 }),
    total: Type.Integer({ minimum: 0 }),
  },
  strict,
);

const sweepOutcome = Type.Enum(['ok', 'void', 'skipped'], {
  description:
    'void: too much of the upstream failed to answer, nothing recorded; skipped: not audited, or the hub was stopping.',
});

/** The upstream status page of one package (GET /api/v1/admin/upstream/status/{registry}/{name}). */
export const UpstreamStatus = Type.Object(
  {
    registry: Type.String(),
    package_name: Type.String({ description: 'The canonical name.' }),
    audit_policy: Type.Enum(['audit', 'block'], { description: "The hub's [upstream_audit] on_confirmed." }),
    policy: Type.Enum(['audit', 'block'], {
      description: "The policy in force for this registry (its own on_confirmed, else the hub's).",
    }),
    overridden: Type.Boolean({ description: "The registry's policy differs from the hub's." }),
    audited: Type.Boolean(),
    reason: Type.Optional(Type.String({ description: 'Why the registry is not audited.' })),
    held_versions: Type.Array(Type.String()),
    rows: Type.Array(AuditRowAnswer),
    last_sweep: Type.Union([Type.Object({ at: maybe(time), outcome: sweepOutcome }, strict), Type.Null()], {
      description: "When the registry's last sweep ended, and how; null: never swept.",
    }),
  },
  strict,
);

const ProbeAnswer = Type.Object(
  {
    version: Type.String(),
    answer: Type.Enum(['present', 'absent', 'inconclusive', 'not_audited']),
    rung: Type.String({ description: 'Which rung of the probe ladder decided: listing, version, file, or none.' }),
    detail: Type.Optional(Type.String()),
  },
  strict,
);

export const RecheckAnswer = Type.Object(
  {
    registry: Type.String(),
    package_name: Type.String(),
    probes: Type.Array(ProbeAnswer),
    cleared: Type.Array(Type.String(), {
      description: 'Versions whose rows the upstream answered for (cleared or reappeared).',
    }),
    rows: Type.Array(AuditRowAnswer, { description: "The package's rows after the recheck." }),
  },
  strict,
);

export const SweepAnswer = Type.Object(
  {
    sweeps: Type.Array(
      Type.Object(
        {
          registry: Type.String(),
          outcome: sweepOutcome,
          reason: Type.Optional(Type.String({ description: 'Why a registry was skipped.' })),
          probed: Type.Integer({ minimum: 0 }),
          conclusive: Type.Integer({ minimum: 0 }),
          missing: Type.Integer({ minimum: 0 }),
          disappeared: Type.Integer({ minimum: 0 }),
          reappeared: Type.Integer({ minimum: 0 }),
        },
        strict,
      ),
      { description: 'One per registry swept.' },
    ),
  },
  strict,
);
