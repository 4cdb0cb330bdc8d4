import Type, { type Static } from 'typebox';
import { EFFECTS } from './effects.js';
import { NAME_MESSAGE, REGISTRY_NAME_PATTERN, secretPair, type ConfigSection } from '@hub/runtime';

export const FlagSourceSchema = Type.Object(
  {
    name: Type.String({
      pattern: REGISTRY_NAME_PATTERN,
      examples: ['osv-bridge'],
      errorMessage: NAME_MESSAGE,
      description: 'The `<source>` path segment flag requests are posted to.',
    }),
    ...secretPair('secret', 'The shared signing secret of this source'),
    previous_secrets: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        maxItems: 8,
        description:
          'During a secret rotation: earlier secrets still accepted alongside `secret`. The audit row of each push says whether the current or a previous secret matched. Prefer `previous_secrets_env`.',
      }),
    ),
    previous_secrets_env: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        maxItems: 8,
        description:
          'Names of the environment variables holding `previous_secrets`; after loading, their values are in `previous_secrets`.',
      }),
    ),
    max_effect: Type.Union(
      EFFECTS.map((e) => Type.Literal(e)),
      {
        default: 'hard_block',
        description:
          "The strongest effect this source may set. A flag pushed with a stronger effect is stored with this one, and counted in the answer's `effect_capped`.",
      },
    ),
    registries: Type.Array(
      Type.String({
        minLength: 1,
        maxLength: 64,
        examples: ['npm-*'],
        description: 'A registry name, `*` matching any characters.',
      }),
      {
        default: ['*'],
        description: 'The registries this source may flag (globs). A flag for another registry is a per-item error.',
      },
    ),
    max_flags_per_minute: Type.Integer({
      minimum: 1,
      default: 10000,
      description:
        'Flags (items, good or bad) this source may push per minute, counted across replicas in the database. A request that would go over it is refused whole with 429 and `Retry-After` (seconds to the next minute); nothing of it is stored.',
    }),
    allow_unsigned_time: Type.Boolean({
      default: false,
      description:
        'Accept requests without X-Hub-Timestamp and X-Hub-Delivery, signed over the body (or DELETE and the path) alone. Such requests can be replayed by anyone who saw one: only for a source that cannot send the two headers yet. hub warns at start.',
    }),
  },
  { additionalProperties: false, description: 'An external source allowed to push signed flags.' },
);

/** `[[flag_sources]]`: this plugin's own section of hub.toml. */
export const FlagSourcesSchema = Type.Array(FlagSourceSchema, {
  default: [],
  description: 'Flag sources, as `[[flag_sources]]` tables.',
});

export type FlagSourceConfig = Static<typeof FlagSourceSchema>;

export const flagSourcesSection: ConfigSection<typeof FlagSourcesSchema> = {
  section: 'flag_sources',
  schema: FlagSourcesSchema,
  /** Names are path segments, so unique; the secret may come from `secret_env`, so it is checked once that is resolved. */
  check(sources) {
    const seen = new Set<string>();
    return sources.flatMap((s, i) => [
      ...(seen.has(s.name)
        ? [{ key: [i, 'name'], message: `duplicate flag source name ${JSON.stringify(s.name)}` }]
        : (seen.add(s.name), [])),
      ...(s.secret === undefined ? [{ key: [i, 'secret'], message: 'missing required key (or secret_env)' }] : []),
      ...((s.previous_secrets ?? []).some((p) => p === s.secret)
        ? [{ key: [i, 'previous_secrets'], message: 'a previous secret must differ from the current one' }]
        : []),
    ]);
  },
};
