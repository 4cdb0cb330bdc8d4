import { definePathKind } from '../path-kind.js';

/** apk (Alpine repositories): `APKINDEX.tar.gz` is mutable; `.apk` files are immutable gzip streams. */
export default definePathKind({
  id: 'apk',
  description: 'Alpine apk repositories: APKINDEX revalidated by TTL, packages cached immutably',
  index: [/(^|\/)APKINDEX\.tar\.gz$/u],
});
