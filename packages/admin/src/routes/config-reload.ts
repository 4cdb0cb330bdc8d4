import { errors } from '@hub/runtime';
import { adminRoute, queryParameters, queryValue, type AdminRoute } from '@hub/admin-kit';
import { ConfigReloadAnswer } from '../answer-schemas.js';

/**
 * Re-reads hub.toml on this replica and, through the cluster, on every other live one (decision 0057). The
 * answer is 200 with each replica's result, whatever they are: a refused or unreachable replica is a result,
 * not a failure of the call (`hub reload` exits 1 on one).
 */
export const configReloadRoutes: AdminRoute[] = [
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/config/reload',
    permission: 'system:write',
    action: 'config_reload',
    summary: 'Re-read hub.toml on every replica (or on this one with local=true)',
    query: queryParameters({ local: 'true: this replica only' }),
    response: ConfigReloadAnswer,
    async handle({ ctx, hub, actor, audit }) {
      const local = queryValue(ctx, 'local');
      if (local !== undefined && local !== 'true' && local !== 'false')
        throw errors.badRequest('local must be true or false');
      ctx.body =
        local === 'true'
          ? { replicas: [await hub.configReload.local({ by: actor, audit })] }
          : await hub.configReload.everywhere({ by: actor, audit });
    },
  }),
];
