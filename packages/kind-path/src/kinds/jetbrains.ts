import { definePathKind } from '../path-kind.js';

/** jetbrains (plugin repositories and IDE downloads): files are immutable; list documents are named with `index_paths`. */
export default definePathKind({
  id: 'jetbrains',
  description: 'JetBrains plugin and IDE download paths: files cached immutably; index_paths names mutable documents',
  index: [],
});
