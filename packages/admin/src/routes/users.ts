import { errors, type Permission } from '@hub/runtime';
import type { Knex } from 'knex';
import { adminRoute, type AdminRoute } from '../admin-route.js';
import { assertMayGrant, subjectGrant } from '../grants.js';
import { CreateUserBody, USER_ID_PATTERN } from '../schemas.js';
import { iso } from '../times.js';

const USER_ID = new RegExp(USER_ID_PATTERN);
/** The bootstrap admin's token is not a database row; blocking the user would not stop it. */
const BOOTSTRAP_ADMIN = 'admin';

export interface UserJson {
  id: string;
  roles: string[];
  blocked: boolean;
  created_at: string | null;
}

export const userJson = (r: Record<string, unknown>): UserJson => ({
  id: String(r.id),
  roles: JSON.parse(String(r.roles)) as string[],
  blocked: Boolean(r.blocked),
  created_at: iso(r.created_at as number),
});

/** The user row, or 404; a malformed id is 404 too (no such user can exist). */
export async function findUser(db: Knex, id: string): Promise<Record<string, unknown>> {
  const row = USER_ID.test(id) ? ((await db('users').where({ id }).first()) as Record<string, unknown> | undefined) : undefined;
  if (!row) throw errors.notFound(`no user "${id.slice(0, 128)}"`);
  return row;
}

const tokenJson = (r: Record<string, unknown>) => ({
  id: String(r.id),
  permissions: r.permissions ? (JSON.parse(String(r.permissions)) as Permission[]) : null,
  expires_at: iso(r.expires_at as number | null),
  revoked_at: iso(r.revoked_at as number | null),
  created_at: iso(r.created_at as number),
});

function setBlocked(blocked: boolean): AdminRoute {
  return adminRoute({
    method: 'POST',
    path: `/api/v1/admin/users/:id/${blocked ? 'block' : 'unblock'}`,
    permission: 'system:write',
    action: blocked ? 'user_block' : 'user_unblock',
    async handle({ ctx, hub, params, audit }) {
      audit.detail = `user ${params.id}`;
      await findUser(hub.db, params.id!);
      if (blocked && params.id === BOOTSTRAP_ADMIN) throw errors.badRequest('the bootstrap admin cannot be blocked; rotate HUB_ADMIN_TOKEN (or admin_token_sha256) instead');
      await hub.db('users').where({ id: params.id }).update({ blocked });
      // This replica stops honouring the user's tokens now; the others within AUTH_MEMO_MS.
      hub.auth.invalidate();
      ctx.body = userJson(await findUser(hub.db, params.id!));
    },
  });
}

export const userRoutes: AdminRoute[] = [
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/users',
    permission: 'system:write',
    action: 'user_create',
    body: CreateUserBody,
    async handle({ ctx, hub, subject, body, audit }) {
      const roles = body.roles ?? ['reader'];
      audit.detail = `user ${body.id} roles ${roles.join(',')}`;
      // The user's roles and any allow policy naming the user or those roles, in every scope.
      await assertMayGrant(hub, subject, await subjectGrant(hub, { user_id: body.id, token_id: null, roles }), `a user with roles ${roles.join(', ')}`);
      const row = { id: body.id, roles: JSON.stringify(roles), blocked: false, created_at: Date.now() };
      const inserted = await hub.db.transaction(async (trx) => {
        if (await trx('users').where({ id: body.id }).first('id')) return false;
        await trx('users').insert(row);
        return true;
      });
      if (!inserted) throw errors.conflict(`user "${body.id}" already exists`);
      ctx.status = 201;
      ctx.body = userJson(row);
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/users',
    permission: 'system:read',
    action: 'user_list',
    async handle({ ctx, hub }) {
      ctx.body = { users: ((await hub.db('users').orderBy('id').select()) as Record<string, unknown>[]).map(userJson) };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/users/:id',
    permission: 'system:read',
    action: 'user_read',
    async handle({ ctx, hub, params }) {
      const user = userJson(await findUser(hub.db, params.id!));
      const tokens = ((await hub.db('tokens').where({ user_id: user.id }).orderBy('created_at').select('id', 'permissions', 'expires_at', 'revoked_at', 'created_at')) as Record<string, unknown>[]).map(tokenJson);
      ctx.body = { ...user, tokens };
    },
  }),
  setBlocked(true),
  setBlocked(false),
];
