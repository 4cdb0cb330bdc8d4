import { defineKind } from '@hub/runtime';

/** pacman: work in progress (issue 4). */
export default defineKind({
  id: 'pacman',
  contract: 1,
  addressing: 'path',
  description: 'pacman (work in progress)',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  routes: [],
});
