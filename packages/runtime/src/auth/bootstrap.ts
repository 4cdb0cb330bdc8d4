import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { hashToken, newToken } from './tokens.js';

/**
 * The bootstrap admin (INTERFACE.md section 3): its token comes from HUB_ADMIN_TOKEN or
 * `[auth] admin_token_sha256`; with neither, the first start on an empty database creates one and
 * prints it once. Returns the hash the authenticator accepts without a database row, if any.
 */
export async function bootstrapAdmin(db: Knex, opts: { adminTokenSha256?: string; envToken?: string; log: Logger; print: (line: string) => void }): Promise<string | undefined> {
  const now = Date.now();
  if (!(await db('users').where({ id: 'admin' }).first('id'))) {
    await db('users').insert({ id: 'admin', roles: JSON.stringify(['admin']), blocked: false, created_at: now }).onConflict('id').ignore();
  }
  if (opts.envToken) return hashToken(opts.envToken);
  if (opts.adminTokenSha256) return opts.adminTokenSha256.toLowerCase();
  const any = await db('tokens').where({ user_id: 'admin' }).first('id');
  if (any) return undefined;
  const { id, token } = newToken();
  await db('tokens').insert({ id, user_id: 'admin', token_sha256: hashToken(token), permissions: null, expires_at: null, revoked_at: null, created_at: now });
  opts.print(`hub: created the bootstrap admin token (shown once, store it now): ${token}`);
  opts.log.info({ token_id: id }, 'bootstrap admin token created');
  return undefined;
}
