import { globMatches } from '@hub/runtime';
import type { JWTPayload } from 'jose';

/** A claim value as text: strings as they are, numbers and booleans as JSON writes them; anything else matches nothing. */
function claimText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/**
 * The first configured claim the token fails, or null when all match: each claim must be present and equal one
 * of its patterns (exact, or a glob where `*` matches any run of characters). For the audit row, never the caller.
 */
export function claimMismatch(
  payload: JWTPayload,
  wanted: Readonly<Record<string, string | readonly string[]>>,
): string | null {
  for (const [name, patterns] of Object.entries(wanted)) {
    const value = claimText(payload[name]);
    if (value === undefined) return `claim ${name} is missing`;
    const list = typeof patterns === 'string' ? [patterns] : patterns;
    if (!list.some((p) => globMatches(p, value))) return `claim ${name} does not match`;
  }
  return null;
}
