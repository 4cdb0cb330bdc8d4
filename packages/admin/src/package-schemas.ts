/**
 * The package catalog and package page of the admin API (issue 14): query strings and answers as typebox
 * schemas. The routes validate with them, the OpenAPI document is generated from them, and the console
 * is typed against their `Static` types.
 */
import Type, { type Static } from 'typebox';

const strict = { additionalProperties: false } as const;
const time = Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'RFC 3339 UTC, or null.' });
const count = Type.Integer({ minimum: 0 });
/** Query values are strings (an empty one counts as absent): page numbers are checked as digits here and bounded by the route. */
const pageNumber = Type.String({
  pattern: '^([1-9][0-9]{0,8})?$',
  description: 'A page number from 1; past the last page, the last page is answered.',
});
const perPage = (max: number, dflt: number) =>
  Type.String({ pattern: '^([1-9][0-9]{0,3})?$', description: `Items per page, 1 to ${max} (default ${dflt}).` });

export const MAX_PACKAGES_PER_PAGE = 200;
export const MAX_VERSIONS_PER_PAGE = 200;
export const VERSIONS_PER_PAGE = 25;

export const UpstreamState = Type.Union([Type.Enum(['ok', 'missing', 'disappeared']), Type.Null()], {
  description:
    'The upstream audit: ok, missing (missed, not confirmed), disappeared (confirmed); null without the audit plugin.',
});

export const PackageListQuery = Type.Object(
  {
    registry: Type.Optional(
      Type.String({ maxLength: 64, description: 'One registry (default: every registry the caller may read).' }),
    ),
    q: Type.Optional(Type.String({ maxLength: 512, description: 'A substring of the canonical package name.' })),
    page: Type.Optional(pageNumber),
    per_page: Type.Optional(perPage(MAX_PACKAGES_PER_PAGE, 50)),
  },
  strict,
);

export const PackageListItem = Type.Object(
  {
    registry: Type.String(),
    name: Type.String({ description: 'The canonical name (docs/coordinates.md).' }),
    versions_held: count,
    bytes_held: count,
    pulls: Type.Integer({ minimum: 0, description: 'Allowed downloads recorded in the audit log.' }),
    last_pull_at: time,
    blocked_versions: Type.Integer({
      minimum: 0,
      description: 'Versions a block refuses (a whole-name block: every held version).',
    }),
    flagged_versions: Type.Integer({
      minimum: 0,
      description: 'Versions under an active flag (a whole-name flag: every held version).',
    }),
    upstream_state: UpstreamState,
  },
  strict,
);

export const PackageList = Type.Object(
  {
    items: Type.Array(PackageListItem),
    total: count,
    page: Type.Integer({ minimum: 1 }),
    per_page: Type.Integer({ minimum: 1 }),
  },
  strict,
);

export const PackageParams = Type.Object(
  {
    registry: Type.String({ description: 'A registry name.' }),
    package: Type.String({ description: 'The package name, URL-encoded as one segment (`%40scope%2Fname`).' }),
  },
  strict,
);

export const PackageDetailQuery = Type.Object(
  {
    q: Type.Optional(Type.String({ maxLength: 255, description: 'A substring of the version.' })),
    prereleases: Type.Optional(Type.Enum(['show', 'hide', ''], { description: 'Pre-releases are hidden by default.' })),
    page: Type.Optional(pageNumber),
    per_page: Type.Optional(perPage(MAX_VERSIONS_PER_PAGE, VERSIONS_PER_PAGE)),
  },
  strict,
);

export const VersionBlock = Type.Union(
  [
    Type.Object(
      {
        id: Type.Integer(),
        reason: Type.Union([Type.String(), Type.Null()]),
        by: Type.String({ description: 'blocked_by: a user id or system:<source>.' }),
      },
      strict,
    ),
    Type.Null(),
  ],
  { description: 'The block that refuses this version (its own, else the whole name), or null.' },
);

export const VersionFlag = Type.Object(
  {
    id: Type.String({ description: "The flag source's own id (external_id)." }),
    source: Type.String(),
    effect: Type.String(),
    summary: Type.Union([Type.String(), Type.Null()]),
    severity: Type.Union([Type.String(), Type.Null()]),
  },
  strict,
);

export const VersionProvenance = Type.Object(
  {
    status: Type.Union([Type.Literal('verified'), Type.Literal('failed'), Type.Literal('absent')], {
      description:
        'verified: a Sigstore bundle checked against the trust root; failed: one that did not check; absent: none attested.',
    }),
    source_repository: Type.Union([Type.String(), Type.Null()], {
      description: "From the signing certificate: the source repository (Fulcio's extension).",
    }),
    workflow: Type.Union([Type.String(), Type.Null()], {
      description: 'The build configuration (workflow) that signed it.',
    }),
    ref: Type.Union([Type.String(), Type.Null()], { description: 'The source ref built.' }),
    builder: Type.Union([Type.String(), Type.Null()], { description: 'The build signer (runner) identity.' }),
    reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it failed, or why none was found.' }),
    checked_at: Type.String(),
    source_changed: Type.Boolean({
      description: 'Another source repository than earlier versions of the package named.',
    }),
  },
  { ...strict, description: 'What @hub/provenance found (present once it checked the version).' },
);

export const PackageVersion = Type.Object(
  {
    version: Type.String(),
    held: Type.Boolean({ description: 'Hub holds a file of this version.' }),
    bytes: count,
    sha256: Type.Union([Type.String({ pattern: '^[0-9a-f]{64}$' }), Type.Null()], {
      description: "The version's largest held file (its archive).",
    }),
    prerelease: Type.Boolean(),
    unlisted: Type.Boolean(),
    blocked: VersionBlock,
    flags: Type.Array(VersionFlag, { description: 'Active flags on this version or on the whole name.' }),
    disappeared: Type.Boolean({ description: 'The upstream audit confirmed the version gone upstream.' }),
    cooldown_until: time,
    pulls: count,
    last_pull_at: time,
    dependencies: Type.Array(Type.Object({ name: Type.String(), range: Type.String() }, strict), {
      description: 'From the SBOM hub extracted from the held file.',
    }),
    provenance: Type.Optional(VersionProvenance),
  },
  strict,
);

export const PackageDetail = Type.Object(
  {
    registry: Type.String(),
    name: Type.String(),
    upstream_state: UpstreamState,
    versions: Type.Array(PackageVersion, { description: 'Newest first, in the kind’s own version order.' }),
    total: Type.Integer({ minimum: 0, description: 'Every version hub knows of the package.' }),
    matched: Type.Integer({ minimum: 0, description: 'Versions the filter (q, prereleases) matched.' }),
    prereleases_hidden: Type.Integer({
      minimum: 0,
      description: 'Pre-releases matching q that prereleases=hide left out.',
    }),
    page: Type.Integer({ minimum: 1 }),
    per_page: Type.Integer({ minimum: 1 }),
  },
  strict,
);

export type PackageListAnswer = Static<typeof PackageList>;
export type PackageListItemAnswer = Static<typeof PackageListItem>;
export type PackageDetailAnswer = Static<typeof PackageDetail>;
export type PackageVersionAnswer = Static<typeof PackageVersion>;
