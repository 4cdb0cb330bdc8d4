import crypto from 'node:crypto';
import type { Knex } from 'knex';

/** A sign-in has this long between the redirect to the provider and the callback. */
export const LOGIN_TTL_MS = 10 * 60_000;

const sha256 = (text: string): string => crypto.createHash('sha256').update(text, 'utf8').digest('hex');
const random = (): string => crypto.randomBytes(32).toString('base64url');

export interface PendingLogin {
  nonce: string;
  code_verifier: string;
}

/**
 * Sign-ins under way, in the shared database so the callback may reach another replica. `state` and the browser
 * cookie are stored only as hashes; take() deletes the row, so a state is good for one callback.
 */
export function createPendingLogins(db: Knex) {
  return {
    async begin(): Promise<{ state: string; browser: string; nonce: string; code_verifier: string }> {
      const p = { state: random(), browser: random(), nonce: random(), code_verifier: random() };
      const now = Date.now();
      await db('oidc_logins').where('expires_at', '<=', now).delete();
      await db('oidc_logins').insert({
        state_sha256: sha256(p.state),
        browser_sha256: sha256(p.browser),
        nonce: p.nonce,
        code_verifier: p.code_verifier,
        expires_at: now + LOGIN_TTL_MS,
      });
      return p;
    },
    /** The login a callback's `state` names, if it is live and belongs to this browser; it is gone afterwards either way. */
    async take(state: string, browser: string | undefined): Promise<PendingLogin | 'unknown' | 'other_browser'> {
      if (state.length === 0 || state.length > 128) return 'unknown';
      const key = sha256(state);
      const row = await db('oidc_logins').where({ state_sha256: key }).first();
      if (!row) return 'unknown';
      // Deleted by exactly one caller: two callbacks racing with one state get one login between them.
      const deleted = await db('oidc_logins').where({ state_sha256: key }).delete();
      if (deleted === 0 || Number(row.expires_at) <= Date.now()) return 'unknown';
      if (
        browser === undefined ||
        !crypto.timingSafeEqual(Buffer.from(sha256(browser)), Buffer.from(String(row.browser_sha256)))
      )
        return 'other_browser';
      return { nonce: row.nonce, code_verifier: row.code_verifier };
    },
  };
}

export type PendingLogins = ReturnType<typeof createPendingLogins>;
