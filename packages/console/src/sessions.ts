import crypto from 'node:crypto';
import type { Knex } from 'knex';

/** Ids and tokens are stored only as SHA-256. */
const sha256 = (text: string): string => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** How long a console session lives after sign-in (docs/decisions/0026). */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface Session {
  /** SHA-256 of the signed-in token: the authenticator resolves it as it would the token. */
  token_sha256: string;
  user_id: string | null;
  /** What a state-changing request with this session's cookie must carry in `X-Hub-CSRF`. */
  csrf: string;
  expires_at: number;
}

/** Browser sessions: the one writer of the console's `sessions` table. The cookie value exists only in the browser. */
export function createSessions(db: Knex) {
  return {
    /** A new session for a token already checked by the caller; `id` is the cookie value. */
    async create(s: {
      token: string;
      user_id: string | null;
      ttl_ms?: number;
    }): Promise<{ id: string; session: Session }> {
      const id = crypto.randomBytes(32).toString('base64url');
      const now = Date.now();
      const session: Session = {
        token_sha256: sha256(s.token),
        user_id: s.user_id,
        csrf: crypto.randomBytes(24).toString('base64url'),
        expires_at: now + (s.ttl_ms ?? SESSION_TTL_MS),
      };
      await db('sessions').insert({ id_sha256: sha256(id), ...session, created_at: now });
      // Expired sessions go when new ones come: the table stays as small as the signed-in population.
      await db('sessions').where('expires_at', '<=', now).delete();
      return { id, session };
    },
    /** The live session a cookie value names, or null (unknown or expired). */
    async find(id: string): Promise<Session | null> {
      if (id.length === 0 || id.length > 128) return null;
      const row = await db('sessions')
        .where({ id_sha256: sha256(id) })
        .first();
      if (!row || Number(row.expires_at) <= Date.now()) return null;
      return {
        token_sha256: row.token_sha256,
        user_id: row.user_id,
        csrf: row.csrf,
        expires_at: Number(row.expires_at),
      };
    },
    /** Sign-out: resolves with whether there was a session. */
    async remove(id: string): Promise<boolean> {
      return (
        (await db('sessions')
          .where({ id_sha256: sha256(id) })
          .delete()) > 0
      );
    },
  };
}

export type Sessions = ReturnType<typeof createSessions>;
