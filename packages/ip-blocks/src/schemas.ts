/** The IP-block admin routes' body and answers, as TypeBox schemas (docs/openapi.json). */
import Type from 'typebox';

const strict = { additionalProperties: false } as const;
const text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const time = Type.String({ format: 'date-time', description: 'RFC 3339 UTC.' });
const nullableText = Type.Union([Type.String(), Type.Null()]);

export const IpBlockBody = Type.Object({ ip: text(64), reason: Type.Optional(text(1000)) }, strict);
export const IpBlockAnswer = Type.Object(
  {
    ip: Type.String({ description: 'An address or CIDR range, canonical.' }),
    reason: nullableText,
    created_by: Type.String(),
    created_at: time,
  },
  strict,
);
export const IpBlockListAnswer = Type.Object({ ip_blocks: Type.Array(IpBlockAnswer) }, strict);
