import { definePlugin } from '@hub/runtime';

/**
 * `[storage] kind = "s3"`: blobs in an S3-compatible bucket. The AWS SDK is imported only when a hub
 * opens this store, so a hub on `fs` that loads the plugin (the CLI loads every default plugin) pays nothing.
 */
export default definePlugin({
  id: 'storage-s3',
  deps: [],
  contract: 1,
  description: 'Blob store on S3-compatible object storage, for [storage] kind = "s3"',
  blobStore: {
    kind: 's3',
    async create(storage, { log }) {
      const { createS3BlobStore } = await import('./s3-blob-store.js');
      return createS3BlobStore(storage, log);
    },
  },
});
