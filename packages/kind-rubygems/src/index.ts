import { defineKind } from '@hub/runtime';

/** rubygems: work in progress (issue 3). */
export default defineKind({
  id: 'rubygems',
  contract: 1,
  addressing: 'package',
  description: 'Ruby gems: the gem API, compact index and specs for gem and bundler',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  routes: [],
});
