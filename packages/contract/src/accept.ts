/**
 * Reading Accept headers (decision 0018), on negotiator: q-values (`q=0` refuses), wildcards, quoted
 * parameters and case are negotiator's, so every kind reads the header the same way. What a kind does with the
 * answer (a default when nothing matches, which named type wins) stays in the kind.
 */
import Negotiator from 'negotiator';

const negotiator = (accept: string | undefined) => new Negotiator({ headers: accept === undefined ? {} : { accept } });

/**
 * The media ranges the header names with q > 0, lower-cased, most preferred first (by q, then the client's
 * order); wildcards (`*\/*`, `application/*`) included. An absent or unreadable header names none.
 */
export function acceptedRanges(accept: string | undefined): string[] {
  if (!accept) return [];
  return negotiator(accept)
    .mediaTypes()
    .map((t) => t.toLowerCase());
}

/**
 * Of `offered`, the types the header accepts, best first: by the q of the most specific range that matches each
 * (exact, then `type/*`, then `*\/*`), then that specificity, then the client's order, then `offered`'s order.
 * An absent header accepts every type; an empty or unreadable one accepts none.
 */
export const preferredTypes = (accept: string | undefined, offered: readonly string[]): string[] =>
  negotiator(accept).mediaTypes([...offered]);
