import { definePlugin } from '@hub/runtime';
import { mountAdminRoutes, ADMIN_KIT_DEPS } from '@hub/admin-kit';
import { ADMIN_ROUTES } from './routes/index.js';
import { mountOpenApiRoute } from './openapi.js';

export { ADMIN_ROUTES } from './routes/index.js';
export { ENTRY_COLUMNS } from './routes/audit-log.js';
export { openApiDocument, openApiPath, operationId } from './openapi.js';
export * from './package-schemas.js';

/**
 * The administration API (docs/openapi.json): users, tokens, policies and the RBAC simulator,
 * package blocks and unlisting, the audit log and its CSV export, cache purges, notifications
 * sent, the health card, and the OpenAPI document of every plugin's admin routes. Access control, blocks, rate limits and the audit writer live in the
 * runtime, behind its services; this plugin is their API.
 */
export default definePlugin({
  id: 'admin',
  deps: [
    ...ADMIN_KIT_DEPS,
    'artifacts',
    'blobs',
    'cleanup',
    'config',
    'configReload',
    'db',
    'events',
    'health',
    'listings',
    'log',
    'packageFacts',
    'served',
    'services',
  ],
  contract: 1,
  description:
    'The administration API: users, tokens, policies, access-check, blocks, unlisting, audit log, cache purge',
  setup(ctx) {
    mountAdminRoutes(ctx, ADMIN_ROUTES);
    mountOpenApiRoute(ctx);
  },
});
