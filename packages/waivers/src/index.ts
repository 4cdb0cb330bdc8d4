import { definePlugin } from '@hub/runtime';
import { mountAdminRoutes, ADMIN_KIT_DEPS } from '@hub/admin-kit';
import { waiversSection } from './config.js';
import { waiverMigrations } from './migrations.js';
import { waiverRoutes } from './routes.js';
import { createWaiverStore } from './waiver-store.js';

export {
  createWaiverStore,
  covers,
  waiverState,
  type WaiverRow,
  type WaiverStore,
  type WaiverState,
} from './waiver-store.js';
export { WaiversSchema, type WaiversConfig } from './config.js';

/**
 * Waivers (decision 0067): the `waivers` table, the admin routes that request, approve, reject, revoke and list
 * them, and the runtime's waiver check, which lets one request through a block or flag refusal when an active
 * waiver covers its package, version and subject.
 */
export default definePlugin({
  id: 'waivers',
  deps: [...ADMIN_KIT_DEPS, 'db', 'pluginConfig', 'services', 'waivers'],
  contract: 1,
  description:
    'Time-boxed waivers: one block or flag lifted for one package and one registry, user or token, approved by a second person',
  migrations: waiverMigrations,
  config: waiversSection,
  setup(ctx) {
    const store = createWaiverStore(ctx.db);
    ctx.waivers.push((target, registry, c, who) => store.waiverFor(target, registry, c, who));
    mountAdminRoutes(ctx, waiverRoutes(store, ctx.pluginConfig.max_days));
  },
});
