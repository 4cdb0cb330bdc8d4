import type { Knex } from 'knex';
import { boundedLru } from '../cache/bounded-lru.js';
import { errors, HubError, isHubError, type Permission } from '@hub/contract';
import { ANONYMOUS, type Subject } from '../policy/decide.js';
import { createPolicyMemo, POLICY_MEMO_MS } from '../policy/policy-memo.js';
import { tokenFromAuthorization } from './credentials.js';
import { memoisedTokenHash } from './tokens.js';

/**
 * How long a token lookup is remembered per process: the policy memo's freshness. A revocation or a user
 * block reaches every replica within this time, because each replica re-reads the database after it.
 */
export const AUTH_MEMO_MS = POLICY_MEMO_MS;

/**
 * Memory for remembered token verdicts, in bytes (about 300 bytes a token: some 14,000 tokens). Past it the
 * least recently used are forgotten; a forgotten token is read again, and during an outage answered 503.
 */
export const TOKEN_MEMO_BYTES = 4 * 1024 * 1024;

/** The bootstrap admin's environment or config token: not a database row, and break-glass (see Subject). */
export const BOOTSTRAP_ADMIN: Subject = {
  user_id: 'admin',
  token_id: 'bootstrap',
  roles: ['admin'],
  break_glass: true,
};

export interface Authenticator {
  /** The subject of a request: anonymous without credentials; throws for bad, revoked or blocked ones. */
  subject(authorization: string | undefined): Promise<Subject>;
  /**
   * subject() answered without waiting when it can be (no credentials, or a token whose verdict is fresh in
   * memory): the subject, or a thrown refusal exactly as subject() would; undefined when only subject() can tell.
   */
  subjectNow(authorization: string | undefined): Subject | undefined;
  /** The subject of a token given by its SHA-256 (a console session stands for its token): throws like subject(). */
  subjectOfHash(tokenSha256: string): Promise<Subject>;
  /**
   * Reads again now what this replica remembers of one token, or of every token of one user, after a change
   * made here (a revocation, a user blocked or given other roles): the change holds here at once, outage or not.
   */
  refresh(which: { token_id: string } | { user_id: string }): Promise<void>;
  /** Drops every remembered lookup. */
  invalidate(): void;
}

/** What a token's row says: who it stands for, or why it is refused; with the time it expires. */
interface Verdict {
  token_id: string;
  user_id: string;
  expires_at: number | null;
  outcome: Subject | HubError;
}

function withDetail(e: HubError, detail: Record<string, unknown>): HubError {
  Object.assign(e.detail, detail);
  return e;
}

/** About what a verdict costs in memory: its key, its fields, the roles and permissions it carries. */
function verdictBytes(v: Verdict): number {
  const s = isHubError(v.outcome)
    ? v.outcome.message
    : JSON.stringify([v.outcome.roles, v.outcome.token_permissions ?? null]);
  return 320 + 2 * (v.token_id.length + v.user_id.length + s.length);
}

const expired = (who: { user_id: string; token_id: string }) =>
  withDetail(errors.unauthenticated('the token has expired'), who);

/**
 * Token lookups go through a policy memo (decision 0037): fresh for AUTH_MEMO_MS, so a revocation on another
 * replica holds everywhere within about a second; while the database is unreachable the last good verdict
 * answers for up to OUTAGE_MEMO_MS (a revoked token stays refused, a token never seen gets 503), so token
 * holders keep downloading what is cached, like anonymous readers do.
 */
export function createAuthenticator(db: Knex, opts: { adminTokenSha256?: string }): Authenticator {
  const verdicts = createPolicyMemo<Verdict>({ max: TOKEN_MEMO_BYTES, weigh: verdictBytes });
  // Made-up tokens are remembered apart, briefly and never through an outage: a flood of them costs one query per
  // AUTH_MEMO_MS each and cannot push the verdicts of real tokens out of memory.
  const unknown = boundedLru<string, HubError>(10_000, { ttl: AUTH_MEMO_MS });
  // The plain tokens of recent requests stay in this process (as in its sockets' buffers), never written anywhere.
  const tokenHash = memoisedTokenHash();

  async function lookup(hash: string): Promise<Verdict> {
    const row = await db('tokens')
      .join('users', 'users.id', 'tokens.user_id')
      .where('tokens.token_sha256', hash)
      .first(
        'tokens.id as token_id',
        'tokens.user_id',
        'tokens.permissions',
        'tokens.expires_at',
        'tokens.revoked_at',
        'users.roles',
        'users.blocked',
      );
    if (!row) throw errors.unauthenticated('unknown token');
    // Who owned a refused token goes on the audit row (HubError.detail never reaches the client).
    const who = { user_id: row.user_id as string, token_id: row.token_id as string };
    const expires_at = row.expires_at === null ? null : Number(row.expires_at);
    const verdict = (outcome: Subject | HubError): Verdict => ({ ...who, expires_at, outcome });
    if (row.revoked_at !== null) return verdict(withDetail(errors.unauthenticated('the token was revoked'), who));
    if (row.blocked) return verdict(new HubError('user_blocked', `user ${row.user_id} is blocked`, { detail: who }));
    return verdict({
      user_id: row.user_id,
      token_id: row.token_id,
      roles: JSON.parse(row.roles) as string[],
      token_permissions: row.permissions ? (JSON.parse(row.permissions) as Permission[]) : undefined,
    });
  }

  async function subjectOfHash(hash: string): Promise<Subject> {
    if (opts.adminTokenSha256 && hash === opts.adminTokenSha256) return BOOTSTRAP_ADMIN;
    const refused = unknown.get(hash);
    if (refused) throw refused;
    let v: Verdict;
    try {
      v = verdicts.fresh(hash) ?? (await verdicts.get(hash, () => lookup(hash)));
    } catch (e) {
      if (isHubError(e) && e.code === 'unauthenticated') unknown.set(hash, e);
      throw e;
    }
    if (isHubError(v.outcome)) throw v.outcome;
    // Checked on every use: a remembered token (during an outage, for minutes) still expires on time.
    if (v.expires_at !== null && v.expires_at <= Date.now()) throw expired(v);
    return v.outcome;
  }

  /** What subjectOfHash() would answer from memory alone (the same checks, in the same order), else undefined. */
  function subjectOfHashNow(hash: string): Subject | undefined {
    if (opts.adminTokenSha256 && hash === opts.adminTokenSha256) return BOOTSTRAP_ADMIN;
    const refused = unknown.get(hash);
    if (refused) throw refused;
    const v = verdicts.fresh(hash);
    if (!v) return undefined;
    if (isHubError(v.outcome)) throw v.outcome;
    if (v.expires_at !== null && v.expires_at <= Date.now()) throw expired(v);
    return v.outcome;
  }

  return {
    subjectOfHash,
    subjectNow(authorization) {
      const token = tokenFromAuthorization(authorization);
      if (!token) {
        if (authorization) throw errors.unauthenticated('the Authorization header is not a token hub understands');
        return ANONYMOUS;
      }
      return subjectOfHashNow(tokenHash(token));
    },
    async subject(authorization) {
      const token = tokenFromAuthorization(authorization);
      if (!token) {
        if (authorization) throw errors.unauthenticated('the Authorization header is not a token hub understands');
        return ANONYMOUS;
      }
      return subjectOfHash(tokenHash(token));
    },
    async refresh(which) {
      const hashes = verdicts.keysWhere((v) =>
        'token_id' in which ? v.token_id === which.token_id : v.user_id === which.user_id,
      );
      await Promise.all(hashes.map((hash) => verdicts.refresh(hash, () => lookup(hash))));
    },
    invalidate() {
      verdicts.clear();
      unknown.clear();
    },
  };
}
