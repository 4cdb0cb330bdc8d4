import type { Logger } from 'pino';
import type { StorageConfig } from '../config/schema.js';
import type { BlobStoreProvider, HubPlugin } from '../contract/plugin.js';
import { providerOfKind } from './providers.js';
import { StartupError } from './startup-error.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import { createFsBlobStore } from '../storage/blobs/fs.js';

const FS: BlobStoreProvider = { kind: 'fs', create: async (storage) => createFsBlobStore(storage.path) };

/**
 * Opens the store `[storage] kind` names, among the built-in fs store and the loaded plugins' stores.
 * Runs before anything else is opened, so a failure leaves nothing to release.
 */
export async function openBlobStore(
  storage: StorageConfig,
  plugins: readonly HubPlugin[],
  log: Logger,
): Promise<BlobStore> {
  const chosen = providerOfKind(plugins, {
    builtIn: FS,
    provided: (p) => p.blobStore,
    what: 'blob store',
    key: 'storage.kind',
    kind: storage.kind,
    code: 'storage',
  });
  try {
    return await chosen.create(storage, { log: log.child({ store: chosen.kind }) });
  } catch (e) {
    throw new StartupError(
      'storage',
      `storage.kind: the "${chosen.kind}" blob store did not open: ${(e as Error).message}`,
    );
  }
}
