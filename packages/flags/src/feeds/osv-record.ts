/**
 * The part of an OSV record a feed reads, checked as it arrives: every
 * string bounded, every list capped, unknown keys ignored (the schema grows). What fails is skipped, counted.
 */
import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';

const str = (maxLength: number) => Type.String({ minLength: 1, maxLength });

const Event = Type.Object({
  introduced: Type.Optional(str(256)),
  fixed: Type.Optional(str(256)),
  last_affected: Type.Optional(str(256)),
  limit: Type.Optional(str(256)),
});

const Range = Type.Object({ type: str(32), events: Type.Array(Event, { maxItems: 1000 }) });

const Affected = Type.Object({
  package: Type.Optional(Type.Object({ ecosystem: str(128), name: str(512) })),
  ranges: Type.Optional(Type.Array(Range, { maxItems: 100 })),
  versions: Type.Optional(Type.Array(str(256), { maxItems: 10_000 })),
});

export const OsvRecordSchema = Type.Object({
  id: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' }),
  modified: Type.Optional(Type.String({ maxLength: 64 })),
  withdrawn: Type.Optional(Type.String({ maxLength: 64 })),
  aliases: Type.Optional(Type.Array(str(128), { maxItems: 100 })),
  summary: Type.Optional(Type.String({ maxLength: 100_000 })),
  details: Type.Optional(Type.String()),
  references: Type.Optional(
    Type.Array(Type.Object({ url: Type.Optional(Type.String({ maxLength: 4096 })) }), { maxItems: 1000 }),
  ),
  affected: Type.Optional(Type.Array(Affected, { maxItems: 10_000 })),
  database_specific: Type.Optional(Type.Object({ severity: Type.Optional(Type.String({ maxLength: 32 })) })),
});

export type OsvRecord = Static<typeof OsvRecordSchema>;
export type OsvAffected = Static<typeof Affected>;
export type OsvEvent = Static<typeof Event>;

// Compiled with the first record a feed reads, not when hub starts (issue 32, idle RSS: about 0.25 MB of heap).
const compile = () => Compile(OsvRecordSchema);
let compiled: ReturnType<typeof compile> | undefined;

/** The record, or why it is not one; `id` is the record's id whenever it has a usable one (its flags are then kept). */
export function readOsvRecord(
  value: unknown,
): { ok: true; record: OsvRecord } | { ok: false; id?: string; reason: string } {
  const check = (compiled ??= compile());
  if (check.Check(value)) return { ok: true, record: value };
  const id = (value as { id?: unknown } | null)?.id;
  const first = [...check.Errors(value)][0];
  const reason = first ? `${first.instancePath || 'record'}: ${first.message}` : 'not an OSV record';
  return typeof id === 'string' && /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(id)
    ? { ok: false, id, reason }
    : { ok: false, reason };
}

const SEVERITY: Readonly<Record<string, string>> = {
  LOW: 'low',
  MODERATE: 'moderate',
  MEDIUM: 'moderate',
  HIGH: 'high',
  CRITICAL: 'critical',
};

/** The record's severity in hub's words (GHSA records' `database_specific.severity`), or null when it gives none hub knows. */
export const osvSeverity = (r: OsvRecord): string | null =>
  SEVERITY[(r.database_specific?.severity ?? '').toUpperCase()] ?? null;

/** The first http(s) reference, for the flag's reference_url. */
export function osvReference(r: OsvRecord): string | null {
  for (const ref of r.references ?? []) {
    if (!ref.url || ref.url.length > 2048) continue;
    try {
      const u = new URL(ref.url);
      if (u.protocol === 'https:' || u.protocol === 'http:') return ref.url;
    } catch {
      // not a URL: the next one
    }
  }
  return null;
}
