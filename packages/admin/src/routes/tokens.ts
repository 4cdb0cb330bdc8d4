import { errors, hashToken, newToken, type Permission, type Subject } from '@hub/runtime';
import { adminRoute, type AdminRoute } from '../admin-route.js';
import { assertMayGrant, subjectGrant } from '../grants.js';
import { CreateTokenBody, TOKEN_ID_PATTERN } from '../schemas.js';
import { iso } from '../times.js';
import { findUser } from './users.js';

const TOKEN_ID = new RegExp(TOKEN_ID_PATTERN);

const tokenJson = (r: Record<string, unknown>) => ({
  id: String(r.id),
  user_id: String(r.user_id),
  permissions: r.permissions ? (JSON.parse(String(r.permissions)) as Permission[]) : null,
  expires_at: iso(r.expires_at as number | null),
  revoked_at: iso(r.revoked_at as number | null),
  created_at: iso(r.created_at as number),
});

export const tokenRoutes: AdminRoute[] = [
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/tokens',
    permission: 'system:write',
    action: 'token_create',
    body: CreateTokenBody,
    async handle({ ctx, hub, subject, body, audit }) {
      audit.detail = `user ${body.user_id}`;
      const user = await findUser(hub.db, body.user_id);
      // What the new token could do, as decide() would see it: the user's roles and the policies naming
      // the user or its roles, in every registry and package scope, narrowed by the token.
      const holder: Subject = { user_id: body.user_id, token_id: null, roles: JSON.parse(String(user.roles)) as string[], token_permissions: body.permissions };
      await assertMayGrant(hub, subject, await subjectGrant(hub, holder), `a token for ${body.user_id}`);
      const { id, token } = newToken();
      const now = Date.now();
      const row = {
        id,
        user_id: body.user_id,
        token_sha256: hashToken(token),
        permissions: body.permissions ? JSON.stringify(body.permissions) : null,
        expires_at: body.expires_in_secs === undefined ? null : now + body.expires_in_secs * 1000,
        revoked_at: null,
        created_at: now,
      };
      await hub.db('tokens').insert(row);
      audit.detail = `token ${id} for user ${body.user_id}`;
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
    async handle({ ctx, hub, params, audit }) {
      const id = params.id!;
      audit.detail = `token ${id.slice(0, 64)}`;
      const row = TOKEN_ID.test(id) ? ((await hub.db('tokens').where({ id }).first()) as Record<string, unknown> | undefined) : undefined;
      if (!row) throw errors.notFound(`no token "${id.slice(0, 64)}"`);
      // Revoking twice keeps the first time.
      await hub.db('tokens').where({ id }).whereNull('revoked_at').update({ revoked_at: Date.now() });
      hub.auth.invalidate();
      audit.detail = `token ${id} of user ${String(row.user_id)}`;
      ctx.body = tokenJson((await hub.db('tokens').where({ id }).first()) as Record<string, unknown>);
    },
  }),
];
