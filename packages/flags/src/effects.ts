/**
 * Flag effects, weakest first: `min_effect` in the exposure report filters by this order.
 * - `info`, `warn`: recorded and reported, never refused.
 * - `gate`: refused on registries with a `[registries.security]` profile.
 * - `hard_block`: refused everywhere; at once on registries with a security profile.
 */
export const EFFECTS = ['info', 'warn', 'gate', 'hard_block'] as const;
export type Effect = (typeof EFFECTS)[number];

export const effectRank = (e: string): number => EFFECTS.indexOf(e as Effect);
