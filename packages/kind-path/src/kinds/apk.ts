import { defineKind } from '@hub/runtime';

/** apk: work in progress (issue 4). */
export default defineKind({
  id: 'apk',
  contract: 1,
  addressing: 'path',
  description: 'apk (work in progress)',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  routes: [],
});
