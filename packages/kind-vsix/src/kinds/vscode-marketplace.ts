import { defineKind } from '@hub/runtime';

/** vscode-marketplace: work in progress (issue 4). */
export default defineKind({
  id: 'vscode-marketplace',
  contract: 1,
  addressing: 'package',
  description: 'vscode-marketplace (work in progress)',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  routes: [],
});
