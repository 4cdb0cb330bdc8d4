/**
 * @hub/admin-kit: how a plugin mounts admin routes. A route is declared once (method, path, permission,
 * audit action, typebox schemas) and mounted with mountAdminRoutes, which authenticates, decides, audits
 * and validates before the handler runs and records the route in the hub's route catalogue (the OpenAPI
 * document's source). A library, not a plugin: the serving core never uses it.
 */
export {
  adminRoute,
  mountAdminRoutes,
  registryResolver,
  ADMIN_KIT_DEPS,
  type AdminKitService,
  type AdminRoute,
  type AdminCall,
  type AdminTarget,
} from './admin-route.js';
export { canonicalCoordinate, type RegistryRef } from './coordinates.js';
export { queryInt, queryParameters, queryValue } from './query.js';
export { bodyValidator } from './validate.js';
export { checkCsvFormat, csvRecord, sendCsv } from './csv.js';
export { iso, parseTime } from './times.js';
