import { defineKind } from '@hub/runtime';

/** deb: work in progress (issue 4). */
export default defineKind({
  id: 'deb',
  contract: 1,
  addressing: 'path',
  description: 'deb (work in progress)',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  routes: [],
});
