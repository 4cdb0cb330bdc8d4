import { defineKind } from '@hub/runtime';

/** gitlab: work in progress (issue 4). */
export default defineKind({
  id: 'gitlab',
  contract: 1,
  addressing: 'forge',
  description: 'gitlab (work in progress)',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  routes: [],
});
