import { defineKind } from '@hub/runtime';

/** generic: work in progress (issue 4). */
export default defineKind({
  id: 'generic',
  contract: 1,
  addressing: 'path',
  description: 'generic (work in progress)',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  routes: [],
});
