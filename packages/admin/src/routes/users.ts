import { errors, type PluginContext, type Token, type User } from '@hub/runtime';
import { adminRoute, iso, type AdminRoute } from '@hub/admin-kit';
import { assertMayGrant, subjectGrant } from '../grants.js';
import { CreateUserBody, USER_ID_PATTERN, UserAnswer, UserDetail, UserList } from '../schemas.js';

const USER_ID = new RegExp(USER_ID_PATTERN);
/** The bootstrap admin's token is not a database row; blocking the user would not stop it. */
const BOOTSTRAP_ADMIN = 'admin';

export const userJson = (u: User) => ({ ...u, created_at: iso(u.created_at) });

/** The user, or 404; a malformed id is 404 too (no such user can exist). */
export async function findUser(hub: Pick<PluginContext, 'services'>, id: string): Promise<User> {
  const user = USER_ID.test(id) ? await hub.services.users.find(id) : null;
  if (!user) throw errors.notFound(`no user "${id.slice(0, 128)}"`);
  return user;
}

/** A token as a user's page lists it. */
const ownTokenJson = (t: Token) => ({
  id: t.id,
  permissions: t.permissions,
  expires_at: iso(t.expires_at),
  revoked_at: iso(t.revoked_at),
  created_at: iso(t.created_at),
});
export const tokenJson = (t: Token) => ({ ...ownTokenJson(t), user_id: t.user_id });

function setBlocked(blocked: boolean): AdminRoute {
  return adminRoute({
    method: 'POST',
    path: `/api/v1/admin/users/:id/${blocked ? 'block' : 'unblock'}`,
    permission: 'system:write',
    action: blocked ? 'user_block' : 'user_unblock',
    summary: blocked ? 'Block a user: every token of theirs is refused' : 'Unblock a user',
    response: UserAnswer,
    async handle({ ctx, hub, params, audit }) {
      audit.detail = `user ${params.id}`;
      await findUser(hub, params.id!);
      if (blocked && params.id === BOOTSTRAP_ADMIN)
        throw errors.badRequest(
          'the bootstrap admin cannot be blocked; rotate HUB_ADMIN_TOKEN (or admin_token_sha256) instead',
        );
      // This replica stops honouring the user's tokens now; the others within AUTH_MEMO_MS.
      const user = await hub.services.users.setBlocked(params.id!, blocked);
      if (!user) throw errors.notFound(`no user "${params.id!.slice(0, 128)}"`);
      ctx.body = userJson(user);
    },
  });
}

export const userRoutes: AdminRoute[] = [
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/users',
    permission: 'system:write',
    action: 'user_create',
    summary: 'Create a user',
    response: UserAnswer,
    status: 201,
    body: CreateUserBody,
    async handle({ ctx, hub, subject, body, audit }) {
      const roles = body.roles ?? ['reader'];
      audit.detail = `user ${body.id} roles ${roles.join(',')}`;
      // The user's roles and any allow policy naming the user or those roles, in every scope.
      await assertMayGrant(
        hub,
        subject,
        await subjectGrant(hub, { user_id: body.id, token_id: null, roles }),
        `a user with roles ${roles.join(', ')}`,
      );
      const user = await hub.services.users.create({ id: body.id, roles });
      if (user === 'exists') throw errors.conflict(`user "${body.id}" already exists`);
      ctx.status = 201;
      ctx.body = userJson(user);
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/users',
    permission: 'system:read',
    action: 'user_list',
    summary: 'List users',
    response: UserList,
    async handle({ ctx, hub }) {
      ctx.body = { users: (await hub.services.users.list()).map(userJson) };
    },
  }),
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/users/:id',
    permission: 'system:read',
    action: 'user_read',
    summary: 'A user and its tokens',
    response: UserDetail,
    async handle({ ctx, hub, params }) {
      const user = userJson(await findUser(hub, params.id!));
      const tokens = (await hub.services.tokens.list(user.id)).map(ownTokenJson);
      ctx.body = { ...user, tokens };
    },
  }),
  setBlocked(true),
  setBlocked(false),
];
