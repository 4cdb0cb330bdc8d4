/** Answers of the flags admin routes, as typebox schemas: declared on the routes and so in the OpenAPI document. */
import { Type } from 'typebox';

const text = Type.Union([Type.String(), Type.Null()]);
const time = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const FlagAnswer = Type.Object(
  {
    source: Type.String(),
    external_id: Type.String(),
    registry: Type.String(),
    package_name: Type.String(),
    version: text,
    version_range: text,
    kind: Type.String(),
    effect: Type.String(),
    summary: text,
    severity: text,
    reference_url: text,
    fixed_version: text,
    expires_at: time,
    requested_effect: Type.Optional(Type.String({ description: 'What the source asked for, when its max_effect capped it.' })),
    state: Type.Enum(['active', 'tombstone', 'expired']),
    raised_at: time,
    lifted_at: time,
  },
  { additionalProperties: false },
);

export const FlagList = Type.Object({ flags: Type.Array(FlagAnswer) }, { additionalProperties: false });
