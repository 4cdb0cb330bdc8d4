/**
 * What every plugin's context shares (setup-plugins.ts adds each plugin's own parts): the parts createHub opened,
 * plus the views made for plugins here (a registry's cached document, the cache's purge and idle, the JSON body parser).
 */
import { errors, type MetadataSpec } from '@hub/contract';
import type { Logger } from 'pino';
import { createListingRevalidation } from '../cache/listing-revalidation.js';
import { createPackageFactsBoard } from '../catalog/package-facts.js';
import type { HubConfig } from '../config/schema.js';
import type { SignInMethod } from '../contract/plugin.js';
import { jsonBody } from '../server/json-body.js';
import type { BoundRegistry } from '../server/registry-routes.js';
import type { OpenedCaches } from './open-caches.js';
import type { SharedContext } from './setup-plugins.js';

/** The parts createHub passes through as they are. */
export type OpenedParts = Omit<
  SharedContext,
  'listings' | 'metadata' | 'served' | 'packageFacts' | 'signIns' | 'artifacts' | 'fetched' | 'jsonBody'
>;

export function pluginShared(
  parts: OpenedParts,
  o: {
    config: HubConfig;
    log: Logger;
    registries: ReadonlyMap<string, BoundRegistry>;
    caches: Pick<OpenedCaches, 'artifacts' | 'metadata' | 'fetched'>;
  },
): SharedContext {
  const { registries, log } = o;
  const { artifacts, metadata } = o.caches;
  return {
    ...parts,
    listings: createListingRevalidation({ registries, metadata, log }),
    metadata: async (registry: string, spec: MetadataSpec) => {
      const reg = registries.get(registry);
      if (!reg) throw errors.notFound(`no registry named "${registry}"`);
      return metadata.get(reg.info, spec, reg.upstream);
    },
    served: registries,
    packageFacts: createPackageFactsBoard(),
    signIns: [] as SignInMethod[],
    artifacts: {
      purge: async (registry, packageName, version) => (await artifacts.purge(registry, packageName, version)).length,
      idle: () => artifacts.idle(),
    },
    fetched: o.caches.fetched,
    jsonBody: jsonBody(o.config.limits.max_json_body_bytes),
  };
}
