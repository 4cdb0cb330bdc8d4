import type { AdminRoute } from '@hub/admin-kit';
import { accessCheckRoutes } from './access-check.js';
import { auditLogRoutes } from './audit-log.js';
import { blockRoutes } from './blocks.js';
import { cacheRoutes } from './cache.js';
import { cleanupRoutes } from './cleanup.js';
import { configReloadRoutes } from './config-reload.js';
import { eventRoutes } from './events.js';
import { healthRoutes } from './health.js';
import { claimRoutes } from './claims.js';
import { garbageRoutes } from './garbage.js';
import { localPackageRoutes } from './local-packages.js';
import { policyRoutes } from './policies.js';
import { sbomRoutes } from './sbom.js';
import { tokenRoutes } from './tokens.js';
import { unlistRoutes } from './unlist.js';
import { userRoutes } from './users.js';
import { packageRoutes } from './packages.js';

/** Every admin route, with its permission and audit action: the table the permission test walks. */
export const ADMIN_ROUTES: readonly AdminRoute[] = [
  ...userRoutes,
  ...tokenRoutes,
  ...policyRoutes,
  ...accessCheckRoutes,
  ...blockRoutes,
  ...unlistRoutes,
  ...auditLogRoutes,
  ...cacheRoutes,
  ...cleanupRoutes,
  ...configReloadRoutes,
  ...eventRoutes,
  ...healthRoutes,
  ...localPackageRoutes,
  ...claimRoutes,
  ...garbageRoutes,
  ...packageRoutes,
  ...sbomRoutes,
];
