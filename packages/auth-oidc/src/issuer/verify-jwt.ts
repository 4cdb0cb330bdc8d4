import type { JWTPayload } from 'jose';
import { jose } from '../jose.js';
import type { IssuerKeys } from './issuer-keys.js';

/** Only asymmetric signatures: never `none`, never HMAC (a public key used as an HMAC secret would verify). */
export const ALGORITHMS = ['RS256', 'ES256'] as const;
/** How far the clocks of hub and an identity provider may disagree, for exp, nbf and iat. */
export const CLOCK_SKEW_SECS = 60;
/** A token longer than this is no identity token. */
export const MAX_JWT_LENGTH = 16 * 1024;

/** Why a token was refused: for the audit row and the log only, never for the caller. */
export class TokenRefused extends Error {}

/**
 * Verifies a JWT's signature against the issuer's keys (RS256/ES256 only), its `iss` and `aud`, and its times:
 * `exp` and `iat` required, `nbf` honoured, `iat` not in the future, each within CLOCK_SKEW_SECS.
 */
export async function verifyJwt(
  token: string,
  keys: IssuerKeys,
  expect: { issuer: string; audience: string },
): Promise<JWTPayload> {
  if (token.length > MAX_JWT_LENGTH) throw new TokenRefused('the token is too long');
  const { jwtVerify } = await jose();
  try {
    const { payload } = await jwtVerify(token, keys.getKey, {
      algorithms: [...ALGORITHMS],
      issuer: expect.issuer,
      audience: expect.audience,
      clockTolerance: CLOCK_SKEW_SECS,
      requiredClaims: ['exp', 'iat'],
    });
    if (payload.iat! > Date.now() / 1000 + CLOCK_SKEW_SECS)
      throw new TokenRefused('the token was issued in the future (iat)');
    return payload;
  } catch (e) {
    if (e instanceof TokenRefused) throw e;
    const code = (e as { code?: string }).code;
    // jose's codes name the failed check (ERR_JWT_EXPIRED, ERR_JWS_SIGNATURE_VERIFICATION_FAILED, ...); a key-set read failure is no refusal.
    if (
      typeof code === 'string' &&
      (code.startsWith('ERR_JW') || code === 'ERR_JOSE_ALG_NOT_ALLOWED' || code === 'ERR_JOSE_NOT_SUPPORTED')
    )
      throw new TokenRefused(`${code}: ${(e as Error).message}`);
    throw e;
  }
}
