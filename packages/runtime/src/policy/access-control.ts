import type Koa from 'koa';
import type { Authenticator } from '../auth/authenticate.js';
import type { AuditContext } from '../audit/access-event.js';
import type { Permission } from '../contract/kind.js';
import { errors, HubError, isHubError } from '../errors.js';
import { decide, type AccessRequest, type Decision, type Subject } from './decide.js';
import type { PolicySource } from './policy-source.js';

export interface AccessControl {
  readonly policies: PolicySource;
  readonly anonymous: readonly Permission[];
  /**
   * The request's subject (anonymous without credentials). Refused credentials throw; their owner,
   * when known (a revoked token, a blocked user), is still written on the request's audit row.
   */
  subject(ctx: Koa.Context): Promise<Subject>;
  /** decide() with the policies in force now (config plus API, at most a second old). */
  decide(r: AccessRequest): Promise<Decision>;
  /**
   * subject() then decide(); 401 for an anonymous request that is denied, 403 otherwise.
   * `challenge` replaces the 401 (registry routes also ask for Basic credentials).
   */
  require(ctx: Koa.Context, permission: Permission, target?: { registry?: string; package?: string }, opts?: { challenge?: (message: string) => HubError }): Promise<Subject>;
}

function audit(ctx: Koa.Context): Partial<AuditContext> {
  return ((ctx.state.audit as AuditContext | undefined) ?? {}) as Partial<AuditContext>;
}

/** Authentication plus the one decision function, for every route: registry and admin alike. */
export function createAccessControl(auth: Authenticator, policies: PolicySource, anonymous: readonly Permission[]): AccessControl {
  const ac: AccessControl = {
    policies,
    anonymous,
    async subject(ctx) {
      const a = audit(ctx);
      try {
        const s = await auth.subject(ctx.get('authorization') || undefined);
        ctx.state.subject = s;
        a.user_id = s.user_id;
        a.token_id = s.token_id;
        return s;
      } catch (e) {
        if (isHubError(e)) {
          if (typeof e.detail.user_id === 'string') a.user_id = e.detail.user_id;
          if (typeof e.detail.token_id === 'string') a.token_id = e.detail.token_id;
        }
        throw e;
      }
    },
    async decide(r) {
      return decide(r, await policies.current(), anonymous);
    },
    async require(ctx, permission, target = {}, opts = {}) {
      const subject = await ac.subject(ctx);
      const d = await ac.decide({ subject, permission, ...target });
      if (d.decision === 'allow') return subject;
      if (subject.user_id === null && subject.token_id === null) {
        const message = `a token with ${permission} is needed here`;
        if (opts.challenge) {
          // Nothing was presented yet: this 401 asks for credentials; it refuses nobody.
          if (!ctx.get('authorization')) ctx.state.challenged = true;
          throw opts.challenge(message);
        }
        throw errors.unauthenticated(message);
      }
      throw errors.forbidden(`the token lacks ${permission} here (${d.reason})`);
    },
  };
  return ac;
}
