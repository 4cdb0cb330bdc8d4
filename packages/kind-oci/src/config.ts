import { Type, type Static } from 'typebox';

/** The oci kind's own [[registries]] keys: credentials for the upstream registry (Basic, or the Bearer token dance). */
export const configSchema = Type.Object(
  {
    username: Type.Optional(Type.String({ minLength: 1, description: 'User name hub presents to the upstream registry (Basic) or its token service (Bearer); unset: anonymous pulls.' })),
    password: Type.Optional(Type.String({ minLength: 1, description: 'Password for `username`. Prefer `password_env` so the secret stays out of the file.' })),
    password_env: Type.Optional(Type.String({ minLength: 1, description: 'Name of the environment variable holding `password`; after loading, its value is in `password`.' })),
  },
  { additionalProperties: false },
);

export type OciConfig = Static<typeof configSchema>;
