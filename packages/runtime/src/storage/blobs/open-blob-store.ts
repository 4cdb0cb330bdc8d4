import type { Logger } from 'pino';
import type { StorageConfig } from '../../config/schema.js';
import type { BlobStoreProvider, HubPlugin } from '../../contract/plugin.js';
import { StartupError } from '../../plugins/startup-error.js';
import type { BlobStore } from './blob-store.js';
import { createFsBlobStore } from './fs.js';

const FS: BlobStoreProvider = { kind: 'fs', create: async (storage) => createFsBlobStore(storage.path) };

/**
 * Opens the store `[storage] kind` names, among the built-in fs store and the loaded plugins' stores.
 * Runs before anything else is opened, so a failure leaves nothing to release.
 */
export async function openBlobStore(storage: StorageConfig, plugins: readonly HubPlugin[], log: Logger): Promise<BlobStore> {
  const providers = [FS];
  for (const p of plugins) {
    if (!p.blobStore) continue;
    if (providers.some((q) => q.kind === p.blobStore!.kind))
      throw new StartupError('plugin_duplicate', `plugin "${p.id}" provides the blob store "${p.blobStore.kind}", which another store already provides`);
    providers.push(p.blobStore);
  }
  const chosen = providers.find((q) => q.kind === storage.kind);
  if (!chosen)
    throw new StartupError('storage', `storage.kind: no loaded blob store "${storage.kind}" (loaded: ${providers.map((q) => q.kind).sort().join(', ')}); load the plugin that provides it`);
  try {
    return await chosen.create(storage, { log: log.child({ store: chosen.kind }) });
  } catch (e) {
    throw new StartupError('storage', `storage.kind: the "${chosen.kind}" blob store did not open: ${(e as Error).message}`);
  }
}
