import { Type, type Static } from 'typebox';

/** The oci kind's own [[registries]] keys: credentials for the upstream registry (Basic, or the Bearer token dance), and pushes. */
export const configSchema = Type.Object(
  {
    username: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'User name hub presents to the upstream registry (Basic) or its token service (Bearer); unset: anonymous pulls.',
      }),
    ),
    password: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Password for `username`. Prefer `password_env` so the secret stays out of the file.',
      }),
    ),
    password_env: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Name of the environment variable holding `password`; after loading, its value is in `password`.',
      }),
    ),
    immutable_tags: Type.Optional(
      Type.Boolean({
        description:
          'Local and hybrid registries: a pushed tag never moves to another manifest (a push that would move it is refused with 409 `TAG_INVALID`), nor is it deleted. Default false: tags move, and each move is an audit row.',
      }),
    ),
    gc_grace_secs: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'Local and hybrid registries: a pushed blob no manifest refers to is removed by garbage collection only once it is this old (seconds), so a push that sends its blobs before its manifest is never cut short. Default 86400 (one day).',
      }),
    ),
    gc_interval_secs: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          'Local and hybrid registries: how often garbage collection runs (seconds; once per interval across replicas). 0: never on its own (`hub oci gc` still runs it). Default 86400.',
      }),
    ),
  },
  { additionalProperties: false },
);

export type OciConfig = Static<typeof configSchema>;

export const DEFAULT_GC_GRACE_SECS = 86_400;
export const DEFAULT_GC_INTERVAL_SECS = 86_400;
