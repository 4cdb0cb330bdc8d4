import Type from 'typebox';
import { defineKind, nameAtVersion } from '@hub/contract';
import { detectUpstream } from './detect-upstream.js';
import { clientCheck } from './client-check.js';
import { declaredDigests } from './declared-digests.js';
import { canonicalVersion, isPackageId, normalizeVersion } from './names.js';
import { nameProbe, probe } from './probe.js';
import { flatSpec, flatVersions, routes } from './routes.js';
import { registrationSpec, registrationVersions } from './registration.js';
import { upstreamIndex } from './service-index.js';
import { mergeFlatIndex, mergeRegistrationRoute, mergeSearchRoute } from './group-merge.js';
import { sbom } from './sbom.js';
import { nugetVersionRange } from './version-range.js';

export const configSchema = Type.Object(
  {
    delete_mode: Type.Optional(
      Type.Enum(['unlist', 'delete'], {
        default: 'unlist',
        description:
          'Local and hybrid registries: what `dotnet nuget delete` does. `unlist` (as the public gallery does) keeps the version restorable but unlisted; `delete` removes it, and its version number is never pushed again',
      }),
    ),
  },
  { additionalProperties: false },
);

/**
 * nuget: the NuGet v3 protocol. hub generates the service index; the flat container, registration
 * and search come from the upstream service index's resources, with every URL rewritten to hub.
 * Canonical coordinates: the lower-cased id and the normalized, lower-cased version (`id@version`).
 */
export default defineKind({
  id: 'nuget',
  contract: 1,
  addressing: 'package',
  description: 'NuGet v3: service index, flat container, registrations, search; dotnet nuget push and delete',
  publishTimes: true,
  configSchema,
  coordinate: nameAtVersion({
    split: 'last',
    isName: isPackageId,
    normalizeName: (name) => name.toLowerCase(),
    normalizeVersion,
    canonicalVersion,
  }),
  routes,
  detectUpstream,
  clientCheck,
  probe,
  nameProbe,
  declaredDigests,
  sbom,
  versionRange: nugetVersionRange,
  group: { merge: { 'flat-index': mergeFlatIndex, registration: mergeRegistrationRoute, search: mergeSearchRoute } },
  // Revalidation refetches the registration index and the flat container index (decision 0058).
  listings: {
    async specs(lc, name) {
      const up = await upstreamIndex(lc);
      const id = name.toLowerCase();
      return [...(up.registration ? [registrationSpec(up, id, 'index.json')] : []), flatSpec(up, id)];
    },
    versions(body, spec) {
      if (spec.key.startsWith('registration:')) return registrationVersions(body);
      const versions = flatVersions(body);
      if (!versions) throw new Error('not a flat container index');
      return versions.map((v) => normalizeVersion(v) ?? v);
    },
  },
});

/** The DOCTYPE-refusing XML reader this kind uses, for other code that reads .nuspec files. */
