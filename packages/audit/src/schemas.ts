/** Answers of the upstream routes, as typebox schemas: declared on the routes and so in the OpenAPI document. */
import { Type } from 'typebox';

const strict = { additionalProperties: false } as const;
const time = Type.String({ format: 'date-time' });
const maybe = <T extends Parameters<typeof Type.Union>[0][number]>(s: T) => Type.Union([s, Type.Null()]);

/** An upstream audit row (INTERFACE.md section 4), with the rung and detail of the last probe. */
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

export const AuditRowPage = Type.Object({ rows: Type.Array(AuditRowAnswer), page: Type.Integer({ minimum: 1 }), per_page: Type.Integer({ minimum: 1 }), total: Type.Integer({ minimum: 0 }) }, strict);
