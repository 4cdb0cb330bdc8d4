import type { Knex } from 'knex';
import { boundedLru } from '../cache/bounded-lru.js';
import { errors, HubError, isHubError, type Permission } from '@hub/contract';
import { ANONYMOUS, type Subject } from '../policy/decide.js';
import { tokenFromAuthorization } from './credentials.js';
import { hashToken } from './tokens.js';

/**
 * How long a token lookup is remembered per process. A revocation or a user block reaches every
 * replica within this time, because each replica re-reads the database after it.
 */
export const AUTH_MEMO_MS = 1_000;

/** The bootstrap admin's environment or config token: not a database row, and break-glass (see Subject). */
export const BOOTSTRAP_ADMIN: Subject = { user_id: 'admin', token_id: 'bootstrap', roles: ['admin'], break_glass: true };

export interface Authenticator {
  /** The subject of a request: anonymous without credentials; throws for bad, revoked or blocked ones. */
  subject(authorization: string | undefined): Promise<Subject>;
  /** The subject of a token given by its SHA-256 (a console session stands for its token): throws like subject(). */
  subjectOfHash(tokenSha256: string): Promise<Subject>;
  /** Drops remembered lookups (after an admin change on this replica). */
  invalidate(): void;
}

function withDetail(e: HubError, detail: Record<string, unknown>): HubError {
  Object.assign(e.detail, detail);
  return e;
}

export function createAuthenticator(db: Knex, opts: { adminTokenSha256?: string }): Authenticator {
  // A refusal is remembered like a subject, so a flood of one bad token costs one query per AUTH_MEMO_MS.
  const memo = boundedLru<string, Subject | HubError>(10_000, { ttl: AUTH_MEMO_MS });

  async function lookup(hash: string): Promise<Subject | HubError> {
    if (opts.adminTokenSha256 && hash === opts.adminTokenSha256) return BOOTSTRAP_ADMIN;
    const row = await db('tokens')
      .join('users', 'users.id', 'tokens.user_id')
      .where('tokens.token_sha256', hash)
      .first('tokens.id as token_id', 'tokens.user_id', 'tokens.permissions', 'tokens.expires_at', 'tokens.revoked_at', 'users.roles', 'users.blocked');
    if (!row) return errors.unauthenticated('unknown token');
    // Who owned a refused token goes on the audit row (HubError.detail never reaches the client).
    const who = { user_id: row.user_id as string, token_id: row.token_id as string };
    if (row.revoked_at !== null) return withDetail(errors.unauthenticated('the token was revoked'), who);
    if (row.expires_at !== null && Number(row.expires_at) <= Date.now()) return withDetail(errors.unauthenticated('the token has expired'), who);
    if (row.blocked) return new HubError('user_blocked', `user ${row.user_id} is blocked`, { detail: who });
    return {
      user_id: row.user_id,
      token_id: row.token_id,
      roles: JSON.parse(row.roles) as string[],
      token_permissions: row.permissions ? (JSON.parse(row.permissions) as Permission[]) : undefined,
    };
  }

  async function subjectOfHash(hash: string): Promise<Subject> {
    let hit = memo.get(hash);
    if (!hit) {
      hit = await lookup(hash);
      memo.set(hash, hit);
    }
    if (isHubError(hit)) throw hit;
    return hit;
  }

  return {
    subjectOfHash,
    async subject(authorization) {
      const token = tokenFromAuthorization(authorization);
      if (!token) {
        if (authorization) throw errors.unauthenticated('the Authorization header is not a token hub understands');
        return ANONYMOUS;
      }
      return subjectOfHash(hashToken(token));
    },
    invalidate() {
      memo.clear();
    },
  };
}
