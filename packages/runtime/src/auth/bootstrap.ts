import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { ConfigError } from '../config/load.js';
import { hashToken, newToken } from './tokens.js';

/** The shortest HUB_ADMIN_TOKEN accepted: the token is a break-glass admin credential, so it must not be guessable. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

/** HUB_ADMIN_TOKEN as the bootstrap admin will use it: unset (or empty) is undefined; a short one stops the start. */
export function adminTokenFromEnv(env: NodeJS.ProcessEnv): string | undefined {
  const token = env.HUB_ADMIN_TOKEN;
  if (token === undefined || token === '') return undefined;
  if (token.length < MIN_ADMIN_TOKEN_LENGTH)
    throw new ConfigError(
      `HUB_ADMIN_TOKEN: must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (got ${token.length}); e.g. the output of \`openssl rand -base64 32\``,
      { key: 'HUB_ADMIN_TOKEN' },
    );
  return token;
}

/**
 * The bootstrap admin (docs/coordinates.md): its token comes from HUB_ADMIN_TOKEN or
 * `[auth] admin_token_sha256`; with neither, the first start on an empty database creates one and
 * prints it once. Returns the hash the authenticator accepts without a database row, if any.
 */
export async function bootstrapAdmin(
  db: Knex,
  opts: { adminTokenSha256?: string; envToken?: string; log: Logger; print: (line: string) => void },
): Promise<string | undefined> {
  const now = Date.now();
  if (!(await db('users').where({ id: 'admin' }).first('id'))) {
    await db('users')
      .insert({ id: 'admin', roles: JSON.stringify(['admin']), blocked: false, created_at: now })
      .onConflict('id')
      .ignore();
  }
  if (opts.envToken) return hashToken(opts.envToken);
  if (opts.adminTokenSha256) return opts.adminTokenSha256.toLowerCase();
  const any = await db('tokens').where({ user_id: 'admin' }).first('id');
  if (any) return undefined;
  const { id, token } = newToken();
  await db('tokens').insert({
    id,
    user_id: 'admin',
    token_sha256: hashToken(token),
    permissions: null,
    expires_at: null,
    revoked_at: null,
    created_at: now,
  });
  opts.print(`hub: created the bootstrap admin token (shown once, store it now): ${token}`);
  opts.log.info({ token_id: id }, 'bootstrap admin token created');
  return undefined;
}
