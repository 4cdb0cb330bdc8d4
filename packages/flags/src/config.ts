import Type, { type Static } from 'typebox';
import { NAME_MESSAGE, REGISTRY_NAME_PATTERN, secretPair, type ConfigSection } from '@hub/runtime';

export const FlagSourceSchema = Type.Object(
  {
    name: Type.String({ pattern: REGISTRY_NAME_PATTERN, examples: ['osv-bridge'], errorMessage: NAME_MESSAGE, description: 'The `<source>` path segment flag requests are posted to.' }),
    ...secretPair('secret', 'The shared signing secret of this source'),
    allow_unsigned_time: Type.Boolean({
      default: false,
      description:
        'Accept requests without X-Hub-Timestamp and X-Hub-Delivery, signed over the body (or DELETE and the path) alone. Such requests can be replayed by anyone who saw one: only for a source that cannot send the two headers yet. hub warns at start.',
    }),
  },
  { additionalProperties: false, description: 'An external source allowed to push signed flags.' },
);

/** `[[flag_sources]]`: this plugin's own section of hub.toml. */
export const FlagSourcesSchema = Type.Array(FlagSourceSchema, { default: [], description: 'Flag sources, as `[[flag_sources]]` tables.' });

export type FlagSourceConfig = Static<typeof FlagSourceSchema>;

export const flagSourcesSection: ConfigSection<typeof FlagSourcesSchema> = {
  section: 'flag_sources',
  schema: FlagSourcesSchema,
  /** Names are path segments, so unique; the secret may come from `secret_env`, so it is checked once that is resolved. */
  check(sources) {
    const seen = new Set<string>();
    return sources.flatMap((s, i) => [
      ...(seen.has(s.name) ? [{ key: [i, 'name'], message: `duplicate flag source name ${JSON.stringify(s.name)}` }] : (seen.add(s.name), [])),
      ...(s.secret === undefined ? [{ key: [i, 'secret'], message: 'missing required key (or secret_env)' }] : []),
    ]);
  },
};
