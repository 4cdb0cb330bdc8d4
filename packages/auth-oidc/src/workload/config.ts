import Type, { type Static } from 'typebox';
import { httpUrl, ROLE_PERMISSIONS, type ConfigSection } from '@hub/runtime';

const NAME_PATTERN = '^[a-z0-9][a-z0-9._-]{0,62}$';

const ClaimPattern = Type.String({
  minLength: 1,
  maxLength: 512,
  description: 'An exact value, or a glob where `*` matches any run of characters.',
});

export const WorkloadSchema = Type.Object(
  {
    name: Type.String({
      pattern: NAME_PATTERN,
      examples: ['web-ci'],
      errorMessage: 'must be 1-63 characters of a-z, 0-9, ".", "_" and "-", starting with a letter or digit',
      description: 'Names the entry; the exchanged tokens belong to the user `workload:<name>`.',
    }),
    issuer: httpUrl(
      "The issuer (`iss`) of the CI job's tokens, exactly as they carry it. Trusted configuration: reachable on private networks like an upstream.",
      'https://ci.example.com',
    ),
    jwks_url: Type.Optional(
      httpUrl(
        "Where the issuer's signing keys (JWKS) are read. Unset: from the issuer's discovery document (`<issuer>/.well-known/openid-configuration`), which must name a URL on the issuer's own origin.",
        'https://ci.example.com/.well-known/jwks',
      ),
    ),
    audience: Type.String({
      minLength: 1,
      maxLength: 512,
      examples: ['https://hub.example.com'],
      description:
        'The audience (`aud`) the token must be issued for; a CI job asks its issuer for a token with this audience.',
    }),
    claims: Type.Record(
      Type.String({ pattern: '^[A-Za-z0-9_.:-]{1,128}$' }),
      Type.Union([ClaimPattern, Type.Array(ClaimPattern, { minItems: 1, description: 'Any one of these.' })]),
      {
        minProperties: 1,
        description:
          'Claims the token must carry, all of them: a claim name and an exact value or glob (`*` matches any run of characters), or a list of them (any one). At least one: an entry without claims would take every token the issuer signs for this audience. E.g. `{ repository = "acme/web", ref = "refs/heads/main" }`.',
      },
    ),
    roles: Type.Array(Type.String({ minLength: 1, maxLength: 64, description: 'A role.' }), {
      minItems: 1,
      description: 'The roles the exchanged token holds (e.g. `publisher`).',
    }),
    registries: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 128, description: 'A registry name glob.' }), {
        minItems: 1,
        description:
          "Registry scope: the token's permissions apply only in these registries (name globs). Unset: wherever the roles apply. With a scope, roles must be built-in ones (their permissions are granted per registry).",
      }),
    ),
    token_ttl_secs: Type.Integer({
      default: 900,
      minimum: 1,
      maximum: 86400,
      description: 'Lifetime of an exchanged hub token, in seconds.',
    }),
  },
  {
    additionalProperties: false,
    description: 'One CI identity hub trusts: which issuer, audience and claims; what the exchanged token may do.',
  },
);

/** `[[auth.workload]]`: this plugin's own section of hub.toml, a list of tables inside `[auth]`. */
export const WorkloadsSchema = Type.Array(WorkloadSchema, {
  default: [],
  description:
    'Workload identity (trusted publishing): CI jobs exchange their identity token (a JWT) at `POST /api/v1/auth/exchange` for a short-lived hub token. One `[[auth.workload]]` table per trusted identity.',
});

export type WorkloadConfig = Static<typeof WorkloadSchema>;

export const workloadSection: ConfigSection<typeof WorkloadsSchema> = {
  section: 'auth.workload',
  schema: WorkloadsSchema,
  check: (entries) => {
    const issues: Array<{ key: Array<string | number>; message: string }> = [];
    const seen = new Set<string>();
    entries.forEach((w, i) => {
      if (seen.has(w.name))
        issues.push({ key: [i, 'name'], message: `duplicate workload name ${JSON.stringify(w.name)}` });
      seen.add(w.name);
      for (const key of ['issuer', 'jwks_url'] as const)
        if (w[key] !== undefined && !URL.canParse(w[key]))
          issues.push({ key: [i, key], message: `is not a valid URL (got ${JSON.stringify(w[key])})` });
      if (w.registries !== undefined)
        w.roles.forEach((r, j) => {
          if (!(r in ROLE_PERMISSIONS))
            issues.push({
              key: [i, 'roles', j],
              message: `with a registry scope, roles must be built-in (${Object.keys(ROLE_PERMISSIONS).join(', ')}); got ${JSON.stringify(r)}`,
            });
        });
    });
    return issues;
  },
};
