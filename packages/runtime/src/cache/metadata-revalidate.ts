import {
  errors,
  type HubError,
  isHubError,
  type MetadataDoc,
  type MetadataSpec,
  type RegistryInfo,
  type UpstreamClient,
} from '@hub/contract';
import type { MetadataCacheOptions } from './metadata-cache-options.js';
import type { MetadataMemory } from './metadata-memory.js';
import type { MetadataRefresh } from './metadata-refresh.js';

/** What a revalidation found: the stored copy's bytes before, and the new copy, or why the old one stayed. */
export interface Revalidated {
  before: { body: Buffer; contentType?: string } | null;
  doc?: MetadataDoc;
  error?: HubError;
  kept: string | null;
}

/**
 * Fetches the document now, past its TTL and unconditionally (revalidation, decision 0058). The new copy
 * replaces the stored one only when it passes `spec.check`; otherwise the last good copy stays and
 * `kept` says why. A failure with nothing stored (a 404) is `error`. `before` is the stored copy's bytes.
 */
export function createRevalidate(o: MetadataCacheOptions, mem: MetadataMemory, refresh: MetadataRefresh) {
  const { negative, refreshing } = mem;
  return async function revalidate(
    reg: RegistryInfo,
    spec: MetadataSpec,
    upstream: UpstreamClient,
  ): Promise<Revalidated> {
    const id = `${reg.name}\0${spec.key}`;
    const row = await o.rows.find(reg.name, spec.key);
    const stored = row && (await o.blobs.readAll(row.blob_sha256));
    const before = stored ? { body: stored, contentType: row.content_type ?? undefined } : null;
    // A client's refresh under way finishes first; this one then asks again, so its answer is the newest.
    await refreshing.get(id)?.catch(() => undefined);
    let kept: string | null = null;
    negative.delete(id);
    const p = refresh(reg, spec, upstream, id, false, { onFallback: (why) => (kept = why) });
    refreshing.set(id, p);
    // The upstream no longer has it: the stored copy stays (the last good listing) but is no longer fresh, so
    // every replica asks again, and serves it only as a kept listing.
    const gone = async () => row && (await o.rows.touch(reg.name, spec.key, 0));
    try {
      const doc = await p;
      if (doc.kept) {
        kept = 'the upstream answered 404; the last good listing is kept (the upstream audit holds the package)';
        await gone();
      }
      return { before, doc, kept };
    } catch (e) {
      const error = isHubError(e) ? e : errors.upstream('upstream request failed');
      if (error.code === 'not_found') await gone();
      return { before, error, kept };
    } finally {
      if (refreshing.get(id) === p) refreshing.delete(id);
    }
  };
}
