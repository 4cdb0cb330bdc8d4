import { defineKind } from '@hub/runtime';

/** github: work in progress (issue 4). */
export default defineKind({
  id: 'github',
  contract: 1,
  addressing: 'forge',
  description: 'github (work in progress)',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  routes: [],
});
