/** What every section of the hub.toml schema is built from: the strictness, secrets, URLs and the shared word lists. */
import Type, { type TOptional, type TString } from 'typebox';
import type { Mode } from '@hub/contract';

export { PERMISSIONS } from '@hub/contract';
export const MODES = ['proxy', 'hybrid', 'local', 'group'] as const satisfies readonly Mode[];
export const AUDIT_POLICIES = ['audit', 'block'] as const;

/** Registry names are path segments (`/proxy/<name>/`), so they stay URL- and file-name-safe. */
export const REGISTRY_NAME_PATTERN = '^[a-z0-9][a-z0-9._-]{0,62}$';
const HTTP_URL_PATTERN = '^https?://[^\\s/?#]+[^\\s]*$';
/** HOST:PORT with a bracketed IPv6 host allowed; port 0 asks the OS for a free port (tests). */
export const LISTEN_PATTERN = '^(\\[[0-9A-Fa-f:.]+\\]|[^\\s:\\[\\]]+):[0-9]{1,5}$';

export const strict = { additionalProperties: false } as const;

/** A secret given either literally or as the name of an environment variable holding it. */
export function secretPair<K extends string>(key: K, what: string): { [P in K | `${K}_env`]: TOptional<TString> } {
  const pair: Record<string, TOptional<TString>> = {
    [key]: Type.Optional(
      Type.String({ minLength: 1, description: `${what}. Prefer \`${key}_env\` so the secret stays out of the file.` }),
    ),
    [`${key}_env`]: Type.Optional(
      Type.String({
        minLength: 1,
        description: `Name of the environment variable holding \`${key}\`; after loading, its value is in \`${key}\`.`,
      }),
    ),
  };
  return pair as { [P in K | `${K}_env`]: TOptional<TString> };
}

/** `errorMessage` is what load.ts says when the pattern fails; a regex is no help to a user. */
export const httpUrl = (description: string, example: string) =>
  Type.String({
    pattern: HTTP_URL_PATTERN,
    examples: [example],
    errorMessage: 'must be an http:// or https:// URL',
    description,
  });
export const NAME_MESSAGE = 'must be 1-63 characters of a-z, 0-9, ".", "_" and "-", starting with a letter or digit';
