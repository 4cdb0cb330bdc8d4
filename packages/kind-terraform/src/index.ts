import { defineKind } from '@hub/contract';
import { detectUpstream } from './detect-upstream.js';
import { clientCheck } from './client-check.js';
import { configSchema, type TerraformConfig } from './config.js';
import { codec } from './names.js';
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
});
