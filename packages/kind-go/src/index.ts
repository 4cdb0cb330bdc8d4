import Type from 'typebox';
import { defineKind, errors, nameAtVersion } from '@hub/contract';
import { detectUpstream } from './detect-upstream.js';
import { clientCheck } from './client-check.js';
import { declaredDigests } from './declared-digests.js';
import { escapePath, isGoVersion, modulePath } from './module-path.js';
import { nameProbe, probe } from './probe.js';
import { mergeList } from './group-merge.js';
import { listSpec, listVersions, routes, type GoConfig } from './routes.js';
import { sbom } from './sbom.js';
import { goVersionRange } from './version-range.js';

export const configSchema = Type.Object(
  {
    checksum_db: Type.Optional(
      Type.String({
        pattern: '^https?://',
        description: 'Base URL of the checksum database that /proxy/<name>/sumdb/<db-name>/... passes through to',
      }),
    ),
    checksum_db_exclude: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 500, examples: ['corp.example/*'] }), {
        maxItems: 1000,
        description:
          'Module path patterns (GONOSUMDB syntax: a glob per path element, matching a leading part of the path) that upstream audit sweeps never look up in checksum_db, so private module paths are not sent to it. Clients set their own GONOSUMDB.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** go: the GOPROXY protocol (list, info, mod, zip, @latest) and checksum-database pass-through. */
export default defineKind<GoConfig>({
  id: 'go',
  contract: 1,
  addressing: 'package',
  description: 'Go modules through the module proxy protocol',
  configSchema,
  publishTimes: true,
  coordinate: nameAtVersion({
    split: 'last',
    isName: (name) => /^[A-Za-z0-9._~/-]+$/.test(name) && !name.startsWith('/') && !name.endsWith('/'),
    isVersion: isGoVersion,
  }),
  routes,
  detectUpstream,
  clientCheck,
  probe,
  nameProbe,
  declaredDigests,
  sbom,
  versionRange: goVersionRange,
  group: { merge: { list: mergeList } },
  // Revalidation refetches the module's `@v/list` (decision 0058); pseudo-versions are never listed in it.
  listings: {
    async specs(lc, name) {
      // Every element checked as a request path's would be (no `..`, no leading dot).
      if (modulePath(escapePath(name).split('/')) !== name)
        throw errors.badRequest(`${name.slice(0, 200)} is not a module path`);
      return [listSpec(lc, name)];
    },
    versions(body) {
      if (/^\s*</.test(body.subarray(0, 64).toString('latin1'))) throw new Error('looks like an HTML page');
      return listVersions(body);
    },
  },
});
