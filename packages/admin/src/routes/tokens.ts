import { errors, type Subject } from '@hub/runtime';
import { adminRoute, type AdminRoute } from '@hub/admin-kit';
import { assertMayGrant, subjectGrant } from '../grants.js';
import { CreateTokenBody, CreatedToken, TOKEN_ID_PATTERN, TokenAnswer } from '../schemas.js';
import { findUser, tokenJson } from './users.js';

const TOKEN_ID = new RegExp(TOKEN_ID_PATTERN);

export const tokenRoutes: AdminRoute[] = [
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/tokens',
    permission: 'system:write',
    action: 'token_create',
    summary: 'Create a token (the secret is shown once)',
    response: CreatedToken,
    status: 201,
    body: CreateTokenBody,
    async handle({ ctx, hub, subject, body, audit }) {
      audit.detail = `user ${body.user_id}`;
      const user = await findUser(hub, body.user_id);
      // What the new token could do, as decide() would see it: the user's roles and the policies naming
      // the user or its roles, in every registry and package scope, narrowed by the token.
      const holder: Subject = {
        user_id: body.user_id,
        token_id: null,
        roles: user.roles,
        token_permissions: body.permissions,
      };
      await assertMayGrant(hub, subject, await subjectGrant(hub, holder), `a token for ${body.user_id}`);
      const { token, row } = await hub.services.tokens.issue({
        user_id: body.user_id,
        permissions: body.permissions,
        expires_at: body.expires_in_secs === undefined ? undefined : Date.now() + body.expires_in_secs * 1000,
      });
      audit.detail = `token ${row.id} for user ${body.user_id}`;
      ctx.status = 201;
      // The only time the token is shown: only its SHA-256 is stored.
      ctx.body = { ...tokenJson(row), token };
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/api/v1/admin/tokens/:id',
    permission: 'system:write',
    action: 'token_revoke',
    summary: 'Revoke a token',
    response: TokenAnswer,
    async handle({ ctx, hub, params, audit }) {
      const id = params.id!;
      audit.detail = `token ${id.slice(0, 64)}`;
      const row = TOKEN_ID.test(id) ? await hub.services.tokens.revoke(id) : null;
      if (!row) throw errors.notFound(`no token "${id.slice(0, 64)}"`);
      audit.detail = `token ${id} of user ${row.user_id}`;
      ctx.body = tokenJson(row);
    },
  }),
];
