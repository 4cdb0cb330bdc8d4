import type { ClusterProvider } from '../contract/cluster.js';
import type { HubPlugin } from '../contract/plugin.js';
import { StartupError } from './startup-error.js';

/** The one loaded plugin's cluster, or undefined without one (then each replica fetches on its own). */
export function clusterProvider(plugins: readonly HubPlugin[]): ClusterProvider | undefined {
  const providers = plugins.filter((p) => p.cluster);
  if (providers.length > 1)
    throw new StartupError('plugin_duplicate', `plugins ${providers.map((p) => `"${p.id}"`).join(' and ')} both provide the cluster; load one`);
  return providers[0]?.cluster;
}
