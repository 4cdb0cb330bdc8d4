import { pluginSections } from '@hub/runtime';
import { checkPlugins } from '@hub/runtime/internal';
import { renderConfigDocs } from './config-docs.js';
import { defaultPlugins } from './plugins.js';

/** docs/config.md: the configuration reference for the default distribution (every kind's extra keys included). */
export async function configReference(): Promise<string> {
  const { kinds, others } = checkPlugins(await defaultPlugins());
  return renderConfigDocs(
    new Map([...kinds.values()].filter((k) => k.configSchema).map((k) => [k.id, k.configSchema!])),
    others.flatMap(pluginSections),
  );
}
