import type Koa from 'koa';
import type { Authenticator } from '../auth/authenticate.js';
import type { AuditContext } from '../audit/access-event.js';
import { errors, type HubError, isHubError, type Permission } from '@hub/contract';
import { decide, type AccessRequest, type Decision, type Policy, type Subject } from './decide.js';
import type { PolicySource } from './policy-source.js';

/**
 * Credentials a request carries outside its Authorization header (the console's session cookie): the subject they
 * stand for, null when the request carries none; refused credentials throw.
 */
export type CredentialSource = (ctx: Koa.Context) => Promise<Subject | null>;

export interface AccessControl {
  readonly policies: PolicySource;
  /** Asked, in the order added, when a request has no Authorization header. */
  addCredentialSource(source: CredentialSource): void;
  readonly anonymous: readonly Permission[];
  /** `[auth] anonymous` after a config reload. */
  setAnonymous(next: readonly Permission[]): void;
  /**
   * The request's subject (anonymous without credentials). Refused credentials throw; their owner,
   * when known (a revoked token, a blocked user), is still written on the request's audit row.
   */
  subject(ctx: Koa.Context): Promise<Subject>;
  /** The subject of a token given as text (console sign-in); throws like subject() for a bad one. */
  tokenSubject(token: string): Promise<Subject>;
  /** The same for a token given by its SHA-256 (what a console session holds). */
  tokenSubjectOfHash(tokenSha256: string): Promise<Subject>;
  /** decide() with the policies in force now (config plus API, at most a second old). */
  decide(r: AccessRequest): Promise<Decision>;
  /**
   * The same decision without waiting, when the policies in force are in memory and fresh; else undefined
   * (then await decide()). For the hot path, which would otherwise pay a promise per question.
   */
  decideNow(r: AccessRequest): Decision | undefined;
  /** decide() bound to the policies in force now: for a caller that decides several targets in one request. */
  snapshot(): Promise<(r: AccessRequest) => Decision>;
  /**
   * subject() then authorize(); 401 for an anonymous request that is denied, 403 otherwise.
   * `challenge` replaces the 401 (registry routes also ask for Basic credentials).
   */
  require(ctx: Koa.Context, permission: Permission, target?: AccessTarget, opts?: AuthorizeOptions): Promise<Subject>;
  /**
   * require() answered without a promise when the credentials and the policies are fresh in memory (the hot
   * path: a hit's memoised decision, decision 0075): the subject, a thrown refusal, or undefined (await require()).
   */
  requireNow(
    ctx: Koa.Context,
    permission: Permission,
    target?: AccessTarget,
    opts?: AuthorizeOptions,
  ): Subject | undefined;
  /**
   * decide() for a subject already authenticated, refusing like require(). Used again when a handler
   * resolves a coordinate the route did not name (a gem file name that splits two ways).
   */
  authorize(
    ctx: Koa.Context,
    subject: Subject,
    permission: Permission,
    target?: AccessTarget,
    opts?: AuthorizeOptions,
  ): Promise<void>;
}

export interface AccessTarget {
  registry?: string;
  package?: string;
}

export interface AuthorizeOptions {
  challenge?: (message: string) => HubError;
}

/** The refusal for a denied decision: 401 for anonymous (or the route's challenge), 403 with the reason otherwise. */
export function refusal(
  ctx: Koa.Context,
  subject: Subject,
  permission: Permission,
  d: Decision,
  target: AccessTarget = {},
  opts: AuthorizeOptions = {},
): HubError {
  if (subject.user_id === null && subject.token_id === null) {
    const message = `a token with ${permission} is needed here`;
    if (opts.challenge) {
      // Nothing was presented yet: this 401 asks for credentials; it refuses nobody.
      if (!ctx.get('authorization')) ctx.state.challenged = true;
      return opts.challenge(message);
    }
    return errors.unauthenticated(message);
  }
  const where =
    target.registry === undefined
      ? ''
      : ` in ${target.registry}${target.package === undefined ? '' : ` for ${target.package}`}`;
  return errors.forbidden(`the token lacks ${permission}${where || ' here'} (${d.reason})`);
}

/** Distinct targets remembered per subject and policy snapshot; past it the subject's memo starts over. */
const DECISIONS_PER_SUBJECT = 1_000;

/**
 * decide() remembered per policy snapshot and subject: a registry hit asks the same questions on every
 * request. decide() depends only on these, the policies in force (a reload or a change is a new array, so
 * the memo starts over) and the anonymous grants (a reload is a new array too); the authenticator hands out one subject object
 * per token while it remembers the token, so a new lookup is a new key too.
 */
function memoisedDecide(
  anonymousNow: () => readonly Permission[],
): (r: AccessRequest, policies: readonly Policy[]) => Decision {
  let snapshot: readonly Policy[] | undefined;
  let grants: readonly Permission[] | undefined;
  let bySubject = new WeakMap<Subject, Map<string, Decision>>();
  return (r, policies) => {
    const anonymous = anonymousNow();
    if (policies !== snapshot || anonymous !== grants) {
      snapshot = policies;
      grants = anonymous;
      bySubject = new WeakMap();
    }
    let memo = bySubject.get(r.subject);
    if (!memo || memo.size >= DECISIONS_PER_SUBJECT) bySubject.set(r.subject, (memo = new Map()));
    // Registry names hold no NUL; `-` marks an absent member, `=` a given one.
    const key = `${r.permission}\0${r.registry === undefined ? '-' : `=${r.registry}`}\0${r.package === undefined ? '-' : `=${r.package}`}`;
    let d = memo.get(key);
    if (!d) memo.set(key, (d = Object.freeze(decide(r, policies, anonymous))));
    return d;
  };
}

/** Authentication plus the one decision function, for every route: registry and admin alike. */
export function createAccessControl(
  auth: Authenticator,
  policies: PolicySource,
  initialAnonymous: readonly Permission[],
): AccessControl {
  let anonymous = initialAnonymous;
  const decideIn = memoisedDecide(() => anonymous);
  const sources: CredentialSource[] = [];
  const fromSources = async (ctx: Koa.Context): Promise<Subject | null> => {
    for (const source of sources) {
      const s = await source(ctx);
      if (s) return s;
    }
    return null;
  };
  const ac: AccessControl = {
    policies,
    get anonymous() {
      return anonymous;
    },
    setAnonymous(next) {
      anonymous = next;
    },
    addCredentialSource: (source) => void sources.push(source),
    async subject(ctx) {
      const a: Partial<AuditContext> = (ctx.state.audit as AuditContext | undefined) ?? {};
      try {
        // NuGet sends its API key (`dotnet nuget push --api-key`) in a header of its own, as a bare token.
        const header = ctx.get('authorization') || ctx.get('x-nuget-apikey') || undefined;
        const s = (!header && sources.length > 0 && (await fromSources(ctx))) || (await auth.subject(header));
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
    tokenSubject(token) {
      return auth.subject(`Bearer ${token}`);
    },
    tokenSubjectOfHash(hash) {
      return auth.subjectOfHash(hash);
    },
    async decide(r) {
      return decideIn(r, policies.fresh() ?? (await policies.current()));
    },
    decideNow(r) {
      const fresh = policies.fresh();
      return fresh === undefined ? undefined : decideIn(r, fresh);
    },
    async snapshot() {
      const current = await policies.current();
      return (r) => decide(r, current, anonymous);
    },
    requireNow(ctx, permission, target = {}, opts = {}) {
      // Credential sources (a console session cookie) are asked only by subject().
      const header = ctx.get('authorization') || ctx.get('x-nuget-apikey') || undefined;
      if (!header && sources.length > 0) return undefined;
      const fresh = policies.fresh();
      if (fresh === undefined) return undefined;
      const a: Partial<AuditContext> = (ctx.state.audit as AuditContext | undefined) ?? {};
      let s: Subject | undefined;
      try {
        s = auth.subjectNow(header);
      } catch (e) {
        if (isHubError(e)) {
          if (typeof e.detail.user_id === 'string') a.user_id = e.detail.user_id;
          if (typeof e.detail.token_id === 'string') a.token_id = e.detail.token_id;
        }
        throw e;
      }
      if (s === undefined) return undefined;
      ctx.state.subject = s;
      a.user_id = s.user_id;
      a.token_id = s.token_id;
      const d = decideIn({ subject: s, permission, registry: target.registry, package: target.package }, fresh);
      if (d.decision !== 'allow') throw refusal(ctx, s, permission, d, target, opts);
      return s;
    },
    async require(ctx, permission, target = {}, opts = {}) {
      const subject = await ac.subject(ctx);
      await ac.authorize(ctx, subject, permission, target, opts);
      return subject;
    },
    async authorize(ctx, subject, permission, target = {}, opts = {}) {
      const r = { subject, permission, ...target };
      const d = ac.decideNow(r) ?? (await ac.decide(r));
      if (d.decision !== 'allow') throw refusal(ctx, subject, permission, d, target, opts);
    },
  };
  return ac;
}
