/** The answer for one lockfile entry, as the check route returns it and the CLI and console show it. */
import Type, { type Static } from 'typebox';

export const STATUSES = [
  'held',
  'fetchable',
  'blocked',
  'flagged',
  'cooldown',
  'unlisted',
  'unknown_upstream',
  'integrity_mismatch',
  'no_registry',
] as const;
export type Status = (typeof STATUSES)[number];

export const EntryAnswer = Type.Object({
  ecosystem: Type.String(),
  name: Type.String(),
  version: Type.String(),
  registry: Type.Union([Type.String(), Type.Null()], {
    description: 'The hub registry that serves the entry (null: none of that type).',
  }),
  status: Type.Unsafe<Status>(Type.String({ enum: [...STATUSES], description: 'The answer for this entry.' })),
  installable: Type.Boolean({
    description:
      'Whether an install through hub gets this entry now (held, fetchable, or flagged with an effect that does not refuse).',
  }),
  reason: Type.Optional(
    Type.String({ description: 'Why: the block reason, the refusal, what the upstream answered.' }),
  ),
  effect: Type.Optional(Type.String({ description: 'flagged: the strongest flag effect.' })),
  until: Type.Optional(Type.String({ description: 'cooldown: when the version leaves the cool-down (ISO 8601).' })),
  integrity: Type.Optional(
    Type.Object(
      { algorithm: Type.String(), lockfile: Type.String(), held: Type.String() },
      { description: 'integrity_mismatch: the digests, in hex.' },
    ),
  ),
  digests: Type.Array(Type.String(), { description: 'The digests the lockfile records, as `<algorithm>:<hex>`.' }),
  paths: Type.Array(Type.String(), {
    description:
      "The entry's files under /proxy/<registry>/ (what warming fetches); empty for a PyPI entry whose file names the lockfile does not give (warming reads the project page).",
  }),
});
export type EntryAnswer = Static<typeof EntryAnswer>;
