import type { JSONWebKeySet, JWTVerifyGetKey } from 'jose';
import { jose } from '../jose.js';
import type { Logger } from 'pino';
import type { IssuerClient } from './issuer-client.js';

/** A key set is used this long before it is read again. */
const KEYS_TTL_MS = 10 * 60_000;
/** A token naming a key the set lacks reads the set again, at most this often (a rotation; never a flood). */
const REFRESH_COOLDOWN_MS = 30_000;

/** What OpenID Connect discovery says, as far as hub uses it. */
export interface ProviderMetadata {
  issuer: string;
  jwks_uri: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  device_authorization_endpoint?: string;
  end_session_endpoint?: string;
}

const isUrlText = (v: unknown): v is string => typeof v === 'string' && URL.canParse(v);

/** `<issuer>/.well-known/openid-configuration`, checked: its `issuer` must be the configured one (OpenID Connect Discovery 4.3). */
export async function discover(client: IssuerClient, issuer: string): Promise<ProviderMetadata> {
  const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const doc = (await client.getJson(url)) as Record<string, unknown> | null;
  if (!doc || typeof doc !== 'object' || doc.issuer !== issuer || !isUrlText(doc.jwks_uri))
    throw new Error(`the discovery document at ${url} does not name this issuer and a jwks_uri`);
  const out: ProviderMetadata = { issuer, jwks_uri: doc.jwks_uri };
  for (const key of [
    'authorization_endpoint',
    'token_endpoint',
    'device_authorization_endpoint',
    'end_session_endpoint',
  ] as const)
    if (isUrlText(doc[key])) out[key] = doc[key];
  // The issuer is trusted; what its document names is not: every endpoint stays on the issuer's own origin.
  const origin = new URL(issuer).origin;
  for (const [key, url] of Object.entries(out))
    if (key !== 'issuer' && new URL(url as string).origin !== origin)
      throw new Error(
        `the discovery document at ${url} names ${key} on another origin (${new URL(url as string).origin})`,
      );
  return out;
}

/**
 * An issuer's signing keys: read once, kept for ten minutes, read again (at most every 30 s) when a token names
 * a key the set lacks. Concurrent readers share one fetch; a failed read keeps the last good set.
 */
export interface IssuerKeys {
  /** The key lookup jose's jwtVerify takes. */
  getKey: JWTVerifyGetKey;
}

export function createIssuerKeys(o: { client: IssuerClient; jwksUrl: () => Promise<string>; log: Logger }): IssuerKeys {
  let set: { lookup: JWTVerifyGetKey; at: number } | undefined;
  let reading: Promise<void> | undefined;
  let lastRead = 0;

  const read = (): Promise<void> =>
    (reading ??= (async () => {
      lastRead = Date.now();
      try {
        const jwks = (await o.client.getJson(await o.jwksUrl())) as JSONWebKeySet;
        if (!jwks || !Array.isArray(jwks.keys)) throw new Error('the key set has no "keys" list');
        set = { lookup: (await jose()).createLocalJWKSet(jwks), at: Date.now() };
      } catch (e) {
        o.log.warn({ err: (e as Error).message }, 'identity provider keys could not be read');
        if (!set) throw e;
      } finally {
        reading = undefined;
      }
    })());

  return {
    async getKey(header, token) {
      if (!set || Date.now() - set.at > KEYS_TTL_MS) await read();
      try {
        return await set!.lookup(header, token);
      } catch (e) {
        if ((e as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY' || Date.now() - lastRead < REFRESH_COOLDOWN_MS)
          throw e;
        await read();
        return set!.lookup(header, token);
      }
    },
  };
}
