import { defineKind } from '@hub/runtime';
import { clientCheck } from './client-check.js';
import { canonicalName, isCrateName, isCrateVersion } from './names.js';
import { probe } from './probe.js';
import { routes } from './routes.js';
import { sbom } from './sbom.js';

/**
 * cargo: the sparse index protocol. hub makes the index config.json itself (downloads point at hub,
 * `auth-required` follows the registry's anonymous access), serves the upstream's index files with
 * unlisted versions marked yanked, and caches .crate files checked against the index's cksum.
 */
export default defineKind({
  id: 'cargo',
  contract: 1,
  addressing: 'package',
  description: 'Rust crates through the sparse index',
  coordinate: {
    /** `name` or `name@version` (cargo's own package-id spelling); names are lower-cased. */
    parse(text) {
      const at = text.indexOf('@');
      const [name, version] = at > 0 ? [text.slice(0, at), text.slice(at + 1)] : [text, undefined];
      if (!isCrateName(name) || (version !== undefined && !isCrateVersion(version))) return null;
      return version ? { name: canonicalName(name), version } : { name: canonicalName(name) };
    },
    format: (c) => (c.version ? `${c.name}@${c.version}` : c.name),
    normalizeName: canonicalName,
  },
  routes,
  clientCheck,
  probe,
  sbom,
});
