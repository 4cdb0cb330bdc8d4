import { defineKind } from '@hub/runtime';

/** cargo: work in progress (issue 3). */
export default defineKind({
  id: 'cargo',
  contract: 1,
  addressing: 'package',
  description: 'Rust crates through the sparse index',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  routes: [],
});
