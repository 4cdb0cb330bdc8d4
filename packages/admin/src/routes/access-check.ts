import { ANONYMOUS, errors, type Decision, type Subject } from '@hub/runtime';
import { adminRoute, type AdminRoute } from '@hub/admin-kit';
import { AccessCheckBody } from '../schemas.js';
import { AccessCheckAnswer } from '../answer-schemas.js';
import { findUser } from './users.js';

/**
 * The RBAC simulator: builds the subject the described request would have (a token's owner, roles and
 * narrowing; a user's roles; bare roles; or anonymous) and runs the runtime's decide() on it with the
 * policies in force, exactly as a registry or admin route does. A token or user the routes would refuse
 * before deciding (revoked, expired, blocked) is answered as that refusal.
 */
export const accessCheckRoutes: AdminRoute[] = [
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/access-check',
    permission: 'system:read',
    action: 'access_check',
    summary: 'Simulate an access decision (the RBAC simulator)',
    body: AccessCheckBody,
    response: AccessCheckAnswer,
    async handle({ ctx, hub, body, audit, registry }) {
      audit.detail = `${body.permission} ${body.registry ?? '*'} ${body.package ?? '*'}`;
      let subject: Subject = ANONYMOUS;
      let refusal: Decision | undefined;
      const now = Date.now();
      if (body.token_id !== undefined) {
        const token = await hub.services.tokens.find(body.token_id);
        const owner = token && (await hub.services.users.find(token.user_id));
        if (!token || !owner) throw errors.notFound(`no token "${body.token_id}"`);
        if (body.user_id !== undefined && body.user_id !== token.user_id)
          throw errors.badRequest(`token ${body.token_id} belongs to another user than ${body.user_id}`);
        subject = {
          user_id: token.user_id,
          token_id: body.token_id,
          roles: body.roles ?? owner.roles,
          token_permissions: token.permissions ?? undefined,
        };
        if (token.revoked_at !== null)
          refusal = {
            decision: 'deny',
            rule: 'token_revoked',
            reason: `token ${body.token_id} was revoked (401 unauthenticated)`,
          };
        else if (token.expires_at !== null && token.expires_at <= now)
          refusal = {
            decision: 'deny',
            rule: 'token_expired',
            reason: `token ${body.token_id} has expired (401 unauthenticated)`,
          };
        else if (owner.blocked)
          refusal = {
            decision: 'deny',
            rule: 'user_blocked',
            reason: `user ${token.user_id} is blocked (403 user_blocked)`,
          };
      } else if (body.user_id !== undefined) {
        const user = await findUser(hub, body.user_id);
        subject = { user_id: body.user_id, token_id: null, roles: body.roles ?? user.roles };
        if (user.blocked)
          refusal = {
            decision: 'deny',
            rule: 'user_blocked',
            reason: `user ${body.user_id} is blocked (403 user_blocked)`,
          };
      } else if (body.roles !== undefined) {
        subject = { user_id: null, token_id: null, roles: body.roles };
      }
      // The package name as the routes see it: the registry's kind folds case where it does.
      let pkg = body.package;
      if (pkg !== undefined && body.registry !== undefined) {
        const kind = hub.registries.find((r) => r.name === body.registry) ? registry(body.registry).kind : undefined;
        pkg = kind?.coordinate.normalizeName?.(pkg) ?? pkg;
      }
      const decision =
        refusal ??
        (await hub.access.decide({ subject, permission: body.permission, registry: body.registry, package: pkg }));
      ctx.body = {
        ...decision,
        subject: {
          user_id: subject.user_id,
          token_id: subject.token_id,
          roles: subject.roles,
          token_permissions: subject.token_permissions ?? null,
        },
      };
    },
  }),
];
