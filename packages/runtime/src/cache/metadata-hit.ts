import { errors, type MetadataDoc, type MetadataSpec, type RegistryInfo, type UpstreamClient } from '@hub/contract';
import type { MetadataCacheOptions } from './metadata-cache-options.js';
import type { MetadataMemory } from './metadata-memory.js';
import { described, type MetadataRefresh } from './metadata-refresh.js';

/**
 * A client's read: a fresh copy in memory (a hit); past its TTL but within the maximum staleness, the copy while
 * one refresh runs in the background (stale-while-revalidate, decision 0074); a remembered upstream 404; else one
 * refresh per key, which concurrent reads of it (or of an alternate representation) wait for.
 */
export function createMetadataGet(o: MetadataCacheOptions, mem: MetadataMemory, refresh: MetadataRefresh) {
  const { memo, negative, refreshing } = mem;
  const maxStaleMs = Math.max(0, o.maxStaleSecs ?? 0) * 1000;
  return async function get(reg: RegistryInfo, spec: MetadataSpec, upstream: UpstreamClient): Promise<MetadataDoc> {
    const id = `${reg.name}\0${spec.key}`;
    const m = memo.get(id);
    if (m && Date.now() < m.freshUntil) {
      o.metrics.cache.inc({ registry: reg.name, result: 'hit' });
      return m.doc;
    }
    // Past its TTL but within the maximum staleness: served as it is while one refresh runs in the background.
    if (m && maxStaleMs > 0 && Date.now() < m.freshUntil + maxStaleMs && (spec.ttlSecs ?? reg.metadataTtlSecs) > 0) {
      o.metrics.cache.inc({ registry: reg.name, result: 'stale_revalidating' });
      if (!refreshing.has(id)) {
        const p = refresh(reg, spec, upstream, id).finally(() => refreshing.delete(id));
        refreshing.set(id, p);
        p.catch((e: unknown) =>
          o.log.warn(
            { registry: reg.name, key: spec.key, err: (e as Error).message },
            'background metadata refresh failed',
          ),
        );
      }
      return m.doc;
    }
    if (negative.has(id)) {
      o.metrics.cache.inc({ registry: reg.name, result: 'negative' });
      throw errors.notFound(`${described(spec)} is not in the upstream of registry ${reg.name}`);
    }
    if (reg.mode === 'local')
      throw errors.notFound(`${described(spec)} was never published to local registry ${reg.name}`);
    // Another representation that serves this read, fresh in memory or on its way: no second upstream request.
    for (const alt of spec.alternates ?? []) {
      const altId = `${reg.name}\0${alt}`;
      const am = memo.get(altId);
      if (am && Date.now() < am.freshUntil) {
        o.metrics.cache.inc({ registry: reg.name, result: 'hit' });
        return am.doc;
      }
      const pending = refreshing.get(altId);
      if (pending) {
        o.metrics.cache.inc({ registry: reg.name, result: 'coalesced' });
        return pending;
      }
    }
    let p = refreshing.get(id);
    if (!p) {
      o.metrics.cache.inc({ registry: reg.name, result: 'miss' });
      p = refresh(reg, spec, upstream, id).finally(() => refreshing.delete(id));
      refreshing.set(id, p);
    } else o.metrics.cache.inc({ registry: reg.name, result: 'coalesced' });
    return p;
  };
}
