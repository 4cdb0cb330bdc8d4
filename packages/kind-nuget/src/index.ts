import { defineKind } from '@hub/runtime';
import { clientCheck } from './client-check.js';
import { isPackageId, normalizeVersion } from './names.js';
import { probe } from './probe.js';
import { routes } from './routes.js';
import { sbom } from './sbom.js';

/**
 * nuget: the NuGet v3 protocol. hub generates the service index; the flat container, registration
 * and search come from the upstream service index's resources, with every URL rewritten to hub.
 * Canonical coordinates: the lower-cased id and the normalized, lower-cased version (`id@version`).
 */
export default defineKind({
  id: 'nuget',
  contract: 1,
  addressing: 'package',
  description: 'NuGet v3: service index, flat container, registrations, search',
  coordinate: {
    parse(text) {
      const at = text.lastIndexOf('@');
      const [id, version] = at > 0 ? [text.slice(0, at), text.slice(at + 1)] : [text, undefined];
      if (!isPackageId(id)) return null;
      if (version === undefined) return { name: id.toLowerCase() };
      const v = normalizeVersion(version);
      return v ? { name: id.toLowerCase(), version: v } : null;
    },
    format: (c) => (c.version ? `${c.name}@${c.version}` : c.name),
    normalizeName: (name) => name.toLowerCase(),
  },
  routes,
  clientCheck,
  probe,
  sbom,
});
