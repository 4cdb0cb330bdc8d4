import { definePlugin, HubError, type ClientRule } from '@hub/runtime';
import { mountAdminRoutes, ADMIN_KIT_DEPS } from '@hub/admin-kit';
import { createIpBlockList, type IpBlockList, type IpBlockRow } from './ip-block-list.js';
import { ipBlockMigrations } from './migrations.js';
import { ipBlockRoutes } from './routes.js';

export { canonicalIpBlock, createIpBlockList, type IpBlockList, type IpBlockRow } from './ip-block-list.js';
export { ipBlockRoutes } from './routes.js';

const refusal = (ip: string, block: IpBlockRow | null) =>
  block && new HubError('ip_blocked', `requests from ${ip} are blocked${block.reason ? `: ${block.reason}` : ''}`);

/** The client gate's rule: 403 `ip_blocked` for an address inside a block, answered at once while the memo is fresh. */
export function ipBlockRule(blocks: IpBlockList): ClientRule {
  return {
    refusalNow(ip) {
      const block = blocks.findNow(ip);
      return block === undefined ? undefined : refusal(ip, block);
    },
    async refusal(ip) {
      return refusal(ip, await blocks.find(ip));
    },
  };
}

/**
 * Client IP blocks: the `ip_blocks` table (its only writer), the rule the runtime's client gate asks before
 * the rate limit, and the admin routes `GET|POST /api/v1/admin/ip-blocks`, `DELETE /api/v1/admin/ip-blocks/:ip`.
 */
export default definePlugin({
  id: 'ip-blocks',
  deps: [...ADMIN_KIT_DEPS, 'clientRules', 'db'],
  contract: 1,
  description: 'Client IP blocks: 403 ip_blocked for blocked addresses and ranges, and their admin routes',
  migrations: ipBlockMigrations,
  setup(ctx) {
    const blocks = createIpBlockList(ctx.db);
    ctx.clientRules.push(ipBlockRule(blocks));
    mountAdminRoutes(ctx, ipBlockRoutes(blocks));
  },
});
