import { errors } from '@hub/contract';

/** RFC 3339 UTC, as every time in the admin API is written. */
export const iso = (ms: number | string | null | undefined): string | null =>
  ms === null || ms === undefined ? null : new Date(Number(ms)).toISOString();

const RFC3339 = /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:\d{2}))?$/;

/** A query-string time: RFC 3339 with a zone, or a date (midnight UTC). 400 otherwise. */
export function parseTime(name: string, text: string): number {
  const ms = RFC3339.test(text) ? Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text) : NaN;
  if (!Number.isFinite(ms))
    throw errors.badRequest(
      `${name}: "${text.slice(0, 40)}" is not an RFC 3339 time (e.g. 2025-01-31T12:00:00Z) or a date`,
    );
  return ms;
}
