import { definePlugin } from '@hub/runtime';
import { createLocalStore } from './local-store.js';
import { localPackages } from './migrations/001_local_packages.js';
import { localClaims } from './migrations/002_local_claims.js';
import { localDeploys } from './migrations/003_local_deploys.js';
import { localUploads } from './migrations/004_local_uploads.js';
import { localTags } from './migrations/005_local_tags.js';

export { createLocalStore, type LocalStoreOptions } from './local-store.js';
export type { LocalClaimRecord, LocalPackageRecord, LocalTombstoneRecord, LocalVersionRecord } from './tables.js';

/** Publishing to local and hybrid registries: the store of published files, versions, tombstones and quotas. */
export default definePlugin({
  id: 'publishing',
  deps: [],
  contract: 1,
  description:
    'Publishing to local and hybrid registries: the store of published files, versions, tombstones and quotas',
  migrations: {
    '001_local_packages': localPackages,
    '002_local_claims': localClaims,
    '003_local_deploys': localDeploys,
    '004_local_uploads': localUploads,
    '005_local_tags': localTags,
  },
  localStore: { create: (ctx) => createLocalStore(ctx) },
});
