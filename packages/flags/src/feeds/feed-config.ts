import Type, { type Static } from 'typebox';
import { NAME_MESSAGE, REGISTRY_NAME_PATTERN, type ConfigSection } from '@hub/runtime';
import { EFFECTS } from '../effects.js';
import { SEVERITIES } from '../routes/push.js';

export const AdvisoryFeedSchema = Type.Object(
  {
    name: Type.String({
      pattern: REGISTRY_NAME_PATTERN,
      examples: ['osv-npm'],
      errorMessage: NAME_MESSAGE,
      description:
        "The feed's name: its flags carry the flag source `feed:<name>`, and the admin API's `/advisory-feeds/<name>`.",
    }),
    url: Type.Optional(
      Type.String({
        pattern: '^https?://',
        maxLength: 2048,
        examples: ['https://advisories.example/npm/all.zip'],
        description:
          "Where the feed is pulled from: an http(s) URL answering either one JSON array of OSV records or a zip of OSV JSON files (the OSV bulk export's `all.zip`). Give `url` or `directory`.",
      }),
    ),
    directory: Type.Optional(
      Type.String({
        minLength: 1,
        examples: ['/var/lib/hub/osv'],
        description: 'A local folder of OSV `*.json` files (read recursively), instead of `url`.',
      }),
    ),
    interval_secs: Type.Integer({
      minimum: 60,
      default: 3600,
      description: 'Seconds between pulls; one replica pulls each time (the schedule is shared through the database).',
    }),
    effect: Type.Union(
      EFFECTS.map((e) => Type.Literal(e)),
      { default: 'warn', description: "The effect of the flags this feed raises (see the flags plugin's effects)." },
    ),
    ecosystems: Type.Record(
      Type.String({ minLength: 1, maxLength: 64 }),
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1 }),
      {
        examples: [{ npm: ['npm'], PyPI: ['pypi-secure'], Maven: ['maven'] }],
        description:
          'OSV ecosystem name (`npm`, `PyPI`, `Go`, `Maven`, `NuGet`, `RubyGems`, ...) to the hub registries its packages are flagged on: a registry name, or a registry type meaning every registry of that type. Records of other ecosystems are skipped.',
      },
    ),
    min_severity: Type.Optional(
      Type.Union(
        SEVERITIES.map((s) => Type.Literal(s)),
        {
          description:
            'Skip records whose severity (`database_specific.severity`) is known and lower. Records without one are kept.',
        },
      ),
    ),
    max_bytes: Type.Integer({
      minimum: 1024,
      default: 268_435_456,
      description:
        'Most bytes a pull may download (or read from `directory`); more fails the pull, keeping the last good flags.',
    }),
    max_records: Type.Integer({
      minimum: 1,
      default: 200_000,
      description: 'Most OSV records (zip entries, array items, files) a pull may hold; more fails the pull.',
    }),
    max_flags: Type.Integer({
      minimum: 1,
      default: 200_000,
      description:
        'Most flags a pull may raise (they are held in memory while the pull is written); more fails the pull.',
    }),
    max_record_bytes: Type.Integer({
      minimum: 1024,
      default: 4_194_304,
      description: 'Most bytes of one OSV record (a zip entry or a file).',
    }),
    timeout_secs: Type.Integer({ minimum: 1, default: 300, description: 'A pull that takes longer fails.' }),
  },
  { additionalProperties: false, description: 'An OSV advisory feed hub pulls and turns into flags.' },
);

/** `[[advisory_feeds]]`: a section the flags plugin owns beside `[[flag_sources]]`. */
export const AdvisoryFeedsSchema = Type.Array(AdvisoryFeedSchema, {
  default: [],
  description: 'OSV advisory feeds pulled by hub, as `[[advisory_feeds]]` tables.',
});

export type AdvisoryFeedConfig = Static<typeof AdvisoryFeedSchema>;

export const advisoryFeedsSection: ConfigSection<typeof AdvisoryFeedsSchema> = {
  section: 'advisory_feeds',
  schema: AdvisoryFeedsSchema,
  /** Names are path segments and flag sources, so unique; each feed names exactly one place; each mapping names a registry or a type. */
  check(feeds, config) {
    const seen = new Set<string>();
    const names = new Set(config.registries.map((r) => r.name));
    const types = new Set(config.registries.map((r) => r.type));
    return feeds.flatMap((f, i) => [
      ...(seen.has(f.name)
        ? [{ key: [i, 'name'], message: `duplicate advisory feed name ${JSON.stringify(f.name)}` }]
        : (seen.add(f.name), [])),
      ...((f.url === undefined) === (f.directory === undefined)
        ? [{ key: [i, 'url'], message: 'give url or directory, not both or neither' }]
        : []),
      ...Object.entries(f.ecosystems).flatMap(([eco, targets]) =>
        targets
          .filter((t) => !names.has(t) && !types.has(t))
          .map((t) => ({
            key: [i, 'ecosystems', eco],
            message: `${JSON.stringify(t)} is neither a registry name nor a registry type in [[registries]]`,
          })),
      ),
    ]);
  },
};
