import { defineKind } from '@hub/runtime';

/** forgejo: work in progress (issue 4). */
export default defineKind({
  id: 'forgejo',
  contract: 1,
  addressing: 'forge',
  description: 'forgejo (work in progress)',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  routes: [],
});
