import { definePlugin } from '@hub/runtime';
import { mountAdminRoutes, ADMIN_KIT_DEPS } from '@hub/admin-kit';
import { lockfileSection } from './config.js';
import { lockfileRoutes } from './routes.js';

export { parseLockfile, detectFormat, FORMAT_NAMES, type Format, type ParsedLockfile } from './parse.js';
export { STATUSES, type Status, type EntryAnswer } from './answer.js';

/**
 * Lockfiles in (decision 0059): reads the lockfiles of npm, pnpm, yarn, cargo, go, bundler, pip, poetry, uv and
 * NuGet, and answers per entry whether an install through hub gets it now; marks versions required so cleanup
 * keeps them, and warms the cache through hub's own registry routes.
 */
export default definePlugin({
  id: 'lockfile',
  deps: [
    ...ADMIN_KIT_DEPS,
    'artifacts',
    'blobs',
    'config',
    'log',
    'packageFacts',
    'pluginConfig',
    'refusals',
    'served',
    'services',
  ],
  contract: 1,
  description:
    'Lockfile checks and warming: per entry held, fetchable, blocked, flagged, cool-down, unlisted, unknown upstream or integrity mismatch',
  config: lockfileSection,
  setup(ctx) {
    mountAdminRoutes(ctx, lockfileRoutes(ctx.pluginConfig));
  },
});
