import type { Knex } from 'knex';
import type { Authenticator } from '../auth/authenticate.js';
import { hashToken, newToken } from '../auth/tokens.js';
import type { Permission } from '@hub/contract';
import type { TokenRecord } from '../storage/tables.js';

export interface Token {
  id: string;
  user_id: string;
  /** Narrows the user's permissions; null: all of them. */
  permissions: Permission[] | null;
  expires_at: number | null;
  revoked_at: number | null;
  created_at: number;
}

const when = (v: number | string | null): number | null => (v === null ? null : Number(v));
const toToken = (r: TokenRecord): Token => ({
  id: r.id,
  user_id: r.user_id,
  permissions: r.permissions ? (JSON.parse(r.permissions) as Permission[]) : null,
  expires_at: when(r.expires_at),
  revoked_at: when(r.revoked_at),
  created_at: Number(r.created_at),
});

/** API tokens: the one writer of the `tokens` table (only a token's SHA-256 is stored). */
export function createTokens(db: Knex, auth: Pick<Authenticator, 'refresh'>) {
  async function find(id: string): Promise<Token | null> {
    const row = await db('tokens').where({ id }).first();
    return row ? toToken(row) : null;
  }
  return {
    find,
    /** A user's tokens, oldest first. */
    async list(userId: string): Promise<Token[]> {
      return (await db('tokens').where({ user_id: userId }).orderBy('created_at').select()).map(toToken);
    },
    /** A new token for an existing user; `token` is the only time its text exists outside the caller. */
    async issue(t: {
      user_id: string;
      permissions?: readonly Permission[];
      expires_at?: number;
    }): Promise<{ token: string; row: Token }> {
      const { id, token } = newToken();
      const row: TokenRecord = {
        id,
        user_id: t.user_id,
        token_sha256: hashToken(token),
        permissions: t.permissions ? JSON.stringify(t.permissions) : null,
        expires_at: t.expires_at ?? null,
        revoked_at: null,
        created_at: Date.now(),
      };
      await db('tokens').insert(row);
      return { token, row: toToken(row) };
    },
    /** Revoking twice keeps the first time; resolves with the token, or null when there is none. */
    async revoke(id: string): Promise<Token | null> {
      if (!(await db('tokens').where({ id }).first('id'))) return null;
      await db('tokens').where({ id }).whereNull('revoked_at').update({ revoked_at: Date.now() });
      // This replica remembers the token as revoked at once, so it stays refused here through a database outage.
      await auth.refresh({ token_id: id });
      return find(id);
    },
  };
}

export type Tokens = ReturnType<typeof createTokens>;
