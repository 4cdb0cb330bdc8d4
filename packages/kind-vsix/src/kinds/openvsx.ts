import { defineKind } from '@hub/runtime';

/** openvsx: work in progress (issue 4). */
export default defineKind({
  id: 'openvsx',
  contract: 1,
  addressing: 'package',
  description: 'openvsx (work in progress)',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  routes: [],
});
