import { defineKind } from '@hub/runtime';

/** nuget: work in progress (issue 3). */
export default defineKind({
  id: 'nuget',
  contract: 1,
  addressing: 'package',
  description: 'NuGet v3: service index, flat container, registrations, search',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  routes: [],
});
