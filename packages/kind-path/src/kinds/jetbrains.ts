import { defineKind } from '@hub/runtime';

/** jetbrains: work in progress (issue 4). */
export default defineKind({
  id: 'jetbrains',
  contract: 1,
  addressing: 'path',
  description: 'jetbrains (work in progress)',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  routes: [],
});
