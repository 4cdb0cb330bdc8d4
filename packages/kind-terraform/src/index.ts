import { defineKind } from '@hub/runtime';

/** terraform: work in progress (issue 3). */
export default defineKind({
  id: 'terraform',
  contract: 1,
  addressing: 'package',
  description: 'Terraform providers: registry protocol and network mirror',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  routes: [],
});
