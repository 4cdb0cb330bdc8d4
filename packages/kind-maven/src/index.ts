import { defineKind } from '@hub/runtime';

/** maven: work in progress (issue 3). */
export default defineKind({
  id: 'maven',
  contract: 1,
  addressing: 'package',
  description: 'Maven repositories: POMs, jars, checksums, maven-metadata.xml',
  coordinate: { parse: (t) => (t ? { name: t } : null), format: (c) => c.name },
  routes: [],
});
