import { definePathKind } from '../path-kind.js';

/** generic: any file tree. Files are immutable unless the registry's `index_paths` says otherwise. */
export default definePathKind({
  id: 'generic',
  description: 'Any HTTP file tree: files cached immutably; index_paths names mutable documents',
  index: [],
  htmlAllowed: true,
  publishable: true,
});
