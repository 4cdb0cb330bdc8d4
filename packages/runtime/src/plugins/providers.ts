/**
 * How the runtime picks what plugins provide in its place (a blob store, a rate store, the publishing store,
 * the cluster). Checked before anything is opened, so a refusal leaves nothing to release.
 */
import type { HubPlugin } from '../contract/plugin.js';
import { StartupError } from './startup-error.js';

type SoleHook = 'localStore' | 'cluster' | 'keptListings';

/** The one loaded plugin's `hook`, or undefined without one; two plugins providing it is a start-up error. */
export function soleProvider<H extends SoleHook>(plugins: readonly HubPlugin[], hook: H, what: string): HubPlugin[H] {
  const providers = plugins.filter((p) => p[hook]);
  if (providers.length > 1)
    throw new StartupError(
      'plugin_duplicate',
      `plugins ${providers.map((p) => `"${p.id}"`).join(' and ')} both provide ${what}; load one`,
    );
  return providers[0]?.[hook];
}

/**
 * The provider of the kind a config key names (`[storage] kind`, `[limits] rate_store`), among the built-in one
 * and the plugins'. One provider per kind; a kind nobody provides is refused with the key and what is loaded.
 */
export function providerOfKind<P extends { kind: string }>(
  plugins: readonly HubPlugin[],
  o: {
    builtIn: P;
    provided(p: HubPlugin): P | undefined;
    what: string;
    key: string;
    kind: string;
    code: 'storage' | 'unsupported';
  },
): P {
  const providers = [o.builtIn];
  for (const p of plugins) {
    const q = o.provided(p);
    if (!q) continue;
    if (providers.some((x) => x.kind === q.kind))
      throw new StartupError(
        'plugin_duplicate',
        `plugin "${p.id}" provides the ${o.what} "${q.kind}", which is provided already`,
      );
    providers.push(q);
  }
  const chosen = providers.find((q) => q.kind === o.kind);
  if (!chosen)
    throw new StartupError(
      o.code,
      `${o.key}: no loaded ${o.what} "${o.kind}" (loaded: ${providers
        .map((q) => q.kind)
        .sort()
        .join(', ')}); load the plugin that provides it`,
    );
  return chosen;
}
