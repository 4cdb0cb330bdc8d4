import { defineKind, errors } from '@hub/contract';
import { detectUpstream } from './detect-upstream.js';
import { clientCheck } from './client-check.js';
import { configSchema, type TerraformConfig } from './config.js';
import { codec, splitName } from './names.js';
import { checkVersions, versionsSpec } from './registry-docs.js';
import { probe } from './probe.js';
import { routes } from './routes.js';

export { discovery } from './discovery.js';
export { configSchema, type TerraformConfig } from './config.js';

/**
 * terraform: the provider registry protocol (versions, download documents with signed hub URLs, the
 * zip, SHA256SUMS and its signature) and the provider network mirror protocol over the same cache.
 * No SBOM: a provider zip holds a compiled binary and no dependency manifest.
 */
export default defineKind<TerraformConfig>({
  id: 'terraform',
  contract: 1,
  addressing: 'package',
  description: 'Terraform providers: registry protocol and network mirror',
  publishTimes: true,
  configSchema,
  coordinate: codec,
  routes,
  detectUpstream,
  clientCheck,
  probe,
  // Revalidation refetches the provider's versions document (decision 0058).
  listings: {
    async specs(lc, name) {
      const p = splitName(name);
      if (!p) throw errors.badRequest(`${name.slice(0, 100)} is not a provider address <namespace>/<type>`);
      return [versionsSpec(lc, p)];
    },
    versions(body) {
      const bad = checkVersions(body);
      if (bad) throw new Error(bad);
      return (JSON.parse(body.toString('utf8')) as { versions: Array<{ version: string }> }).versions.map(
        (e) => e.version,
      );
    },
  },
});
