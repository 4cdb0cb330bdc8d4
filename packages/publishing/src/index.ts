import { definePlugin } from '@hub/runtime';

/** Publishing to local and hybrid registries: the store of published files, versions, tombstones and quotas. */
export default definePlugin({
  id: 'publishing',
  contract: 1,
  description: "Publishing to local and hybrid registries: the store of published files, versions, tombstones and quotas",
});
