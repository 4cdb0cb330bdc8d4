/** Answers of the flags admin routes, as typebox schemas: declared on the routes and so in the OpenAPI document. */
import { Type } from 'typebox';

const text = Type.Union([Type.String(), Type.Null()]);
const time = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

export const FlagAnswer = Type.Object(
  {
    source: Type.String(),
    external_id: Type.String(),
    registry: Type.String(),
    package_name: Type.String(),
    version: text,
    version_range: text,
    kind: Type.String(),
    effect: Type.String(),
    summary: text,
    severity: text,
    reference_url: text,
    fixed_version: text,
    expires_at: time,
    requested_effect: Type.Optional(
      Type.String({ description: 'What the source asked for, when its max_effect capped it.' }),
    ),
    aliases: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Other ids of the advisory (CVE, GHSA), for a flag an advisory feed raised.',
      }),
    ),
    state: Type.Enum(['active', 'tombstone', 'expired']),
    raised_at: time,
    lifted_at: time,
  },
  { additionalProperties: false },
);

export const FlagList = Type.Object({ flags: Type.Array(FlagAnswer) }, { additionalProperties: false });

const strict = { additionalProperties: false } as const;
const count = Type.Integer({ minimum: 0 });

/** What a flag source's push answers: each item stored or refused on its own. */
export const PushAnswer = Type.Object(
  {
    accepted: count,
    rejected: count,
    effect_capped: Type.Integer({
      minimum: 0,
      description: "Stored with the source's max_effect instead of the effect asked for.",
    }),
    errors: Type.Array(Type.Object({ index: count, reason: Type.String() }, strict), {
      description: 'Refused items, by their index in `flags`.',
    }),
    flags: Type.Array(FlagAnswer, { description: 'The flags stored.' }),
    skipped: Type.Optional(
      Type.Array(Type.Object({ index: count, external_id: Type.String(), reason: Type.String() }, strict), {
        description: 'Items a later-signed lift overrules.',
      }),
    ),
  },
  strict,
);

export const LiftAnswer = Type.Object({ flag: FlagAnswer }, strict);

export const AnalyseAnswer = Type.Object(
  {
    analyses: Type.Array(
      Type.Object(
        {
          registry: Type.String(),
          artifacts: Type.Integer({
            minimum: 0,
            description: 'Held artifacts whose dependencies are known after this run.',
          }),
          analysed: Type.Integer({ minimum: 0, description: 'Read in this run (analysis is incremental).' }),
          failed: count,
          analysed_at: Type.String({ format: 'date-time' }),
        },
        strict,
      ),
      { description: 'One per registry analysed (registries whose kind has no SBOM extractor are left out).' },
    ),
  },
  strict,
);

const ExposureRow = Type.Object(
  {
    consumer: Type.String({ description: 'The user id, or ip:<address> without a token.' }),
    user_id: text,
    ip_addresses: Type.Union([Type.String(), Type.Null()], { description: 'Space-separated.' }),
    registry: Type.String(),
    package_name: Type.String({ description: 'The flagged package.' }),
    version: text,
    exposure: Type.Enum(['direct', 'dependent']),
    via: Type.Union([Type.String(), Type.Null()], {
      description:
        'For a dependent: the chain from the version fetched to the flagged one, `a@1 -> b@2 -> flagged@3`, ending "(may pull a flagged version)" when hub cannot tell.',
    }),
    source: Type.String(),
    external_id: Type.String(),
    kind: Type.String(),
    effect: Type.String(),
    flag_state: Type.Enum(['active', 'tombstone', 'expired']),
    flag_raised_at: time,
    fetches_before_flag: count,
    fetches_after_flag: count,
    first_fetch_at: time,
    last_fetch_at: time,
    depth: Type.Integer({
      minimum: 0,
      description: 'Dependency links between the version fetched and the flagged one: 0 for a direct fetch.',
    }),
    fetched_package: Type.String({
      description: 'The package the consumer fetched (the flagged one, or a dependent).',
    }),
    fetched_version: text,
    certain: Type.Boolean({
      description:
        'false when a range on the chain did not parse, or the flagged version is not known to hub (a range flag none of whose versions hub holds or saw fetched).',
    }),
    token_ids: Type.Union([Type.String(), Type.Null()], {
      description: 'The ids of the tokens the fetches used, space-separated.',
    }),
    waived: Type.Union([Type.String(), Type.Null()], {
      description:
        'The waiver (decision 0067) in force that lets this consumer fetch the flagged version: `waiver <id> (<scope>, until <time>)`; null when none does.',
    }),
    chain: Type.Array(
      Type.Object(
        {
          package_name: Type.String(),
          version: text,
          range: Type.Union([Type.String(), Type.Null()], {
            description: 'The range the previous step declares for this package.',
          }),
        },
        strict,
      ),
      { description: 'From the version fetched to the flagged version; one step for a direct fetch.' },
    ),
  },
  strict,
);

export const ExposureAnswer = Type.Object(
  {
    rows: Type.Array(ExposureRow, {
      description:
        'One per consumer, version fetched and flag (docs/security.md, exposure), streamed as they are made.',
    }),
    coverage: Type.Object(
      {
        knows: Type.String({ description: 'What hub cannot see.' }),
        window_truncated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
          description: 'Fetches before this time were deleted by audit-log retention.',
        }),
        registries_with_sbom: count,
        registries: Type.Array(
          Type.Object(
            {
              name: Type.String(),
              type: Type.String(),
              flagged: Type.Boolean(),
              flags_live: count,
              sbom: Type.Boolean({ description: 'The kind has an SBOM extractor.' }),
              analysed_at: time,
              artifacts_analysed: count,
            },
            strict,
          ),
        ),
        analysis: Type.String({ description: 'Whether dependents are in the report.' }),
        depth: Type.Integer({ minimum: 1, description: 'Dependency links the report followed.' }),
        walk_truncated: Type.Array(Type.String(), {
          description:
            'Flags (source/external_id) whose walk stopped at 50,000 exposed versions: their report is incomplete.',
        }),
        sources: Type.Array(
          Type.Object(
            {
              name: Type.String(),
              pushed: Type.Boolean(),
              flags: count,
              live: count,
              lifted: count,
              last_push_at: time,
            },
            strict,
          ),
        ),
      },
      { ...strict, description: 'What the report can know (docs/security.md, exposure).' },
    ),
  },
  strict,
);
