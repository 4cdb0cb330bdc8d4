import type { RegistryConfig } from '../config/schema.js';
import type { HubPlugin, LocalStoreProvider } from '../contract/plugin.js';
import { NO_LOCAL_STORE } from '../services/local-store.js';
import { soleProvider } from './providers.js';
import { StartupError } from './startup-error.js';

/**
 * The loaded plugins' store: at most one may provide it, and without one no registry may publish.
 * Checked before anything is opened, so a refusal leaves nothing to release.
 */
export function chooseLocalStore(
  plugins: readonly HubPlugin[],
  registries: readonly RegistryConfig[],
): LocalStoreProvider {
  const provider = soleProvider(plugins, 'localStore', 'the publishing store');
  if (provider) return provider;
  registries.forEach((r, i) => {
    if (r.mode === 'hybrid' || r.mode === 'local')
      throw new StartupError(
        'plugin_requires',
        `registries[${i}].mode: "${r.mode}" needs a publishing plugin (@hub/publishing); none is loaded`,
      );
  });
  return { create: () => NO_LOCAL_STORE };
}
