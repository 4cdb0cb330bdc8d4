import { definePlugin } from '@hub/runtime';
import { mountAdminRoutes } from './admin-route.js';
import { ADMIN_ROUTES } from './routes/index.js';

export { ADMIN_ROUTES } from './routes/index.js';
export { adminRoute, mountAdminRoutes, registryResolver, type AdminRoute, type AdminCall, type AdminTarget } from './admin-route.js';
export { canonicalCoordinate, type RegistryRef } from './coordinates.js';
export { queryInt, queryValue } from './query.js';
export { bodyValidator } from './validate.js';
export { checkCsvFormat, csvRecord, parseCsv, sendCsv } from './csv.js';
export { iso, parseTime } from './times.js';
export { ENTRY_COLUMNS } from './routes/audit-log.js';

/**
 * The administration API (INTERFACE.md section 4): users, tokens, policies and the RBAC simulator,
 * IP blocks, package blocks and unlisting, the audit log and its CSV export, cache purges, notifications
 * sent and the health card. Access
 * control, blocks, rate limits and the audit writer live in the runtime; this plugin is their API.
 */
export default definePlugin({
  id: 'admin',
  contract: 1,
  description: 'The administration API: users, tokens, policies, access-check, IP blocks, blocks, unlisting, audit log, cache purge',
  setup(ctx) {
    mountAdminRoutes(ctx, ADMIN_ROUTES);
  },
});
