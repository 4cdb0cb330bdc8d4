import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { sharedSecret } from '../storage/shared-secret.js';
import { sameSecret } from './same-secret.js';

const KEY_SETTING = 'url_signing_key';
export const SIG_PARAM = 'hub_sig';
export const EXP_PARAM = 'hub_exp';

/**
 * Short-lived signed URLs for clients that send no token to download URLs (terraform). The HMAC key
 * lives in the shared database so every replica accepts every other replica's URLs.
 */
export interface UrlSigner {
  /** `path` is the URL path as sent on the wire, e.g. `/proxy/tf/...`; returns the query to append. */
  sign(path: string, ttlSecs: number): string;
  verify(path: string, query: URLSearchParams): boolean;
}

export async function loadUrlSigner(db: Knex): Promise<UrlSigner> {
  const key = Buffer.from(await sharedSecret(db, KEY_SETTING), 'hex');
  const mac = (path: string, exp: string) =>
    crypto.createHmac('sha256', key).update(`${path}\n${exp}`).digest('base64url');
  return {
    sign(path, ttlSecs) {
      const exp = String(Math.floor(Date.now() / 1000) + ttlSecs);
      return `${EXP_PARAM}=${exp}&${SIG_PARAM}=${mac(path, exp)}`;
    },
    verify(path, query) {
      const exp = query.get(EXP_PARAM);
      const sig = query.get(SIG_PARAM);
      if (!exp || !sig || !/^\d{1,12}$/.test(exp) || Number(exp) < Date.now() / 1000) return false;
      return sameSecret(sig, mac(path, exp));
    },
  };
}
