/** The waiver admin routes' body and answers, as TypeBox schemas (docs/openapi.json). */
import Type from 'typebox';

const strict = { additionalProperties: false } as const;
const text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const time = Type.String({ format: 'date-time', description: 'RFC 3339 UTC.' });
const nullable = (s: ReturnType<typeof Type.String>) => Type.Union([s, Type.Null()]);

export const WaiverTarget = Type.String({
  minLength: 7,
  maxLength: 600,
  pattern: '^(block:[0-9]{1,15}|flag:[^:]+:.+)$',
  description: 'What the waiver lifts: `block:<block id>` or `flag:<flag source>:<external id>`.',
});

export const WaiverScope = Type.Object(
  {
    type: Type.Union([Type.Literal('registry'), Type.Literal('user'), Type.Literal('token')], {
      description: 'Who gets through: every request to the registry, one user, or one token.',
    }),
    id: Type.Optional(text(255)),
  },
  { ...strict, description: 'A `user` or `token` scope names its id; a `registry` scope names none.' },
);

export const WaiverBody = Type.Object(
  {
    target: WaiverTarget,
    registry: text(64),
    package_name: text(512),
    version: Type.Optional(text(1024)),
    scope: WaiverScope,
    reason: text(2000),
    expires_at: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'When the waiver ends by itself (RFC 3339); at most `[waivers] max_days` ahead.',
    }),
  },
  strict,
);

export const WaiverAnswer = Type.Object(
  {
    id: Type.Integer(),
    target: Type.String(),
    registry: Type.String(),
    package_name: Type.String(),
    version: nullable(Type.String()),
    scope: Type.Object({ type: Type.String(), id: nullable(Type.String()) }, strict),
    reason: Type.String(),
    state: Type.Union(['pending', 'active', 'expired', 'rejected', 'revoked'].map((s) => Type.Literal(s))),
    requested_by: Type.String(),
    decided_by: nullable(Type.String()),
    revoked_by: nullable(Type.String()),
    created_at: time,
    decided_at: nullable(time),
    revoked_at: nullable(time),
    expires_at: time,
  },
  strict,
);

export const WaiverList = Type.Object({ waivers: Type.Array(WaiverAnswer) }, strict);
