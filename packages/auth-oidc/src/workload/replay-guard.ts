import crypto from 'node:crypto';
import type { Knex } from 'knex';

/**
 * One use per identity token, across replicas: the token's `jti` (with its issuer), or the hash of the whole
 * token when it has none, is written to `workload_token_uses` until `until` (the token's `exp` plus the clock skew allowed). A second insert of the
 * same key fails on the primary key, which every replica shares.
 */
export function createReplayGuard(db: Knex) {
  let lastPrune = 0;
  return {
    /** true the first time a token is seen before its expiry; false for a replay. */
    async firstUse(t: { issuer: string; jti: string | undefined; token: string; until: number }): Promise<boolean> {
      const key = crypto
        .createHash('sha256')
        .update(t.jti === undefined ? `token\n${t.token}` : `jti\n${t.issuer}\n${t.jti}`)
        .digest('hex');
      const now = Date.now();
      // Expired uses go when new ones come, at most once a minute: the table holds only live tokens.
      if (now - lastPrune > 60_000) {
        lastPrune = now;
        await db('workload_token_uses').where('expires_at', '<=', now).delete();
      }
      try {
        await db('workload_token_uses').insert({ key_sha256: key, expires_at: t.until, used_at: now });
        return true;
      } catch (e) {
        // Only a duplicate key is a replay (SQLite: SQLITE_CONSTRAINT_PRIMARYKEY; MySQL: ER_DUP_ENTRY); other failures are failures.
        const code = (e as { code?: string }).code ?? '';
        if (code.startsWith('SQLITE_CONSTRAINT') || code === 'ER_DUP_ENTRY') {
          // A row left by an expired token of the same jti (not yet pruned) does not make a replay.
          const row = await db('workload_token_uses').where({ key_sha256: key }).first('expires_at');
          if (row && Number(row.expires_at) <= now) {
            await db('workload_token_uses').where({ key_sha256: key }).where('expires_at', '<=', now).delete();
            return this.firstUse(t);
          }
          return false;
        }
        throw e;
      }
    },
  };
}

export type ReplayGuard = ReturnType<typeof createReplayGuard>;
