import { definePathKind } from '../path-kind.js';

/** pacman (Arch repositories): `<repo>.db`, `.files`, `.links`, their tarball forms and signatures are mutable. */
export default definePathKind({
  id: 'pacman',
  description: 'pacman repositories: repo databases revalidated by TTL, package files cached immutably',
  index: [/(^|\/)[^/]+\.(db|files|links)(\.tar(\.(gz|xz|zst|bz2))?)?(\.old)?(\.sig)?$/u],
});
