import type { Logger } from 'pino';
import { errors, HubError, type HubServices } from '@hub/runtime';
import { CLOCK_SKEW_SECS, TokenRefused, verifyJwt } from '../issuer/verify-jwt.js';
import { jose } from '../jose.js';
import type { IssuerKeys } from '../issuer/issuer-keys.js';
import { claimMismatch } from './claims.js';
import type { WorkloadConfig } from './config.js';
import type { ReplayGuard } from './replay-guard.js';
import { ensureWorkloadUser, workloadGrants, workloadUser } from './workload-grants.js';

export interface ExchangeResult {
  id: string;
  token: string;
  user_id: string;
  workload: string;
  roles: string[];
  registries: string[] | null;
  expires_at: string;
}

/** What the audit row says about an exchange: the entry and, on refusal, the reason the caller never sees. */
export interface ExchangeAudit {
  user_id?: string;
  token_id?: string;
  detail: string;
}

export interface Exchanger {
  exchange(jwt: string, audit: (a: ExchangeAudit) => void): Promise<ExchangeResult>;
}

/** The one answer to every refused token: which check failed is the audit row's to say. */
const refused = () => errors.unauthenticated('the identity token was not accepted');

/**
 * Exchanges a CI job's identity token for a short-lived hub token: the token's issuer picks the candidate
 * entries; its signature, issuer, audience and times are verified against that issuer's keys; the first entry
 * whose audience and claims all match wins; the token is used once (replay refused until it expires); the hub
 * token belongs to `workload:<name>` and expires after the entry's `token_ttl_secs`.
 */
export function createExchanger(o: {
  workloads: readonly WorkloadConfig[];
  keysFor: (w: WorkloadConfig) => IssuerKeys;
  replay: ReplayGuard;
  services: HubServices;
  log: Logger;
}): Exchanger {
  return {
    async exchange(jwt, audit) {
      const { decodeJwt, decodeProtectedHeader } = await jose();
      let iss: unknown;
      try {
        decodeProtectedHeader(jwt);
        iss = decodeJwt(jwt).iss;
      } catch {
        audit({ detail: 'not a JWT' });
        throw refused();
      }
      const candidates = o.workloads.filter((w) => w.issuer === iss);
      if (candidates.length === 0) {
        audit({ detail: 'no [[auth.workload]] entry trusts this issuer' });
        throw refused();
      }
      const reasons: string[] = [];
      for (const w of candidates) {
        let payload;
        try {
          payload = await verifyJwt(jwt, o.keysFor(w), { issuer: w.issuer, audience: w.audience });
        } catch (e) {
          if (!(e instanceof TokenRefused)) throw isProviderFailure(e, o.log);
          reasons.push(`${w.name}: ${e.message}`);
          continue;
        }
        const mismatch = claimMismatch(payload, w.claims);
        if (mismatch !== null) {
          reasons.push(`${w.name}: ${mismatch}`);
          continue;
        }
        const user_id = workloadUser(w);
        const first = await o.replay.firstUse({
          issuer: w.issuer,
          jti: typeof payload.jti === 'string' ? payload.jti : undefined,
          token: jwt,
          until: (payload.exp! + CLOCK_SKEW_SECS) * 1000,
        });
        if (!first) {
          audit({ user_id, detail: `${w.name}: the token was used before (replay)` });
          throw refused();
        }
        await ensureWorkloadUser(o.services.users, w);
        const user = await o.services.users.find(user_id);
        if (user?.blocked) {
          audit({ user_id, detail: `${w.name}: the user is blocked` });
          throw new HubError('user_blocked', `user ${user_id} is blocked`);
        }
        const grants = workloadGrants(w);
        const expiresAt = Date.now() + w.token_ttl_secs * 1000;
        const { token, row } = await o.services.tokens.issue({
          user_id,
          expires_at: expiresAt,
          ...(grants.tokenPermissions ? { permissions: grants.tokenPermissions } : {}),
        });
        audit({ user_id, token_id: row.id, detail: `${w.name}: sub ${String(payload.sub ?? '-')}` });
        return {
          id: row.id,
          token,
          user_id,
          workload: w.name,
          roles: [...w.roles],
          registries: w.registries ? [...w.registries] : null,
          expires_at: new Date(expiresAt).toISOString(),
        };
      }
      audit({ detail: reasons.join('; ').slice(0, 2000) });
      throw refused();
    },
  };
}

/** The provider's keys could not be read: a 502 for the caller (nothing about the token), the cause in the log. */
function isProviderFailure(e: unknown, log: Logger): HubError {
  log.warn({ err: (e as Error).message }, "workload exchange: the issuer's keys are unavailable");
  return errors.upstream("the identity provider's keys could not be read; try again later");
}
