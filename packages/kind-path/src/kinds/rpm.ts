import { defineKind } from '@hub/runtime';

/** rpm: work in progress (issue 4). */
export default defineKind({
  id: 'rpm',
  contract: 1,
  addressing: 'path',
  description: 'rpm (work in progress)',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  routes: [],
});
