/**
 * Garbage collection of pushed blobs (decision 0055): a blob file of a repository that no manifest of that
 * repository names, stored longer ago than `gc_grace_secs`, is removed (its quota released, its bytes when no
 * other file names them). A repository with an upload in flight is passed over whole, and the grace period
 * covers a push that sends its blobs before its manifest. Manifests themselves go only when deleted.
 */
import type { GarbageCollector, GarbageItem, GarbageReport } from '@hub/contract';
import { DEFAULT_GC_GRACE_SECS, DEFAULT_GC_INTERVAL_SECS, type OciConfig } from './config.js';
import type { ManifestMeta } from './manifest-push.js';

const BLOB_PREFIX = 'blobs/';

export const garbage: GarbageCollector<OciConfig> = {
  intervalSecs: (cfg) => cfg.gc_interval_secs ?? DEFAULT_GC_INTERVAL_SECS,
  async collect({ registry, local, log, dryRun, now }): Promise<GarbageReport> {
    const graceMs = (registry.config.gc_grace_secs ?? DEFAULT_GC_GRACE_SECS) * 1000;
    if (!dryRun) await local.uploads.expire();
    const busy = new Set((await local.uploads.inFlight()).map((u) => u.name));
    const report: GarbageReport = { dryRun, removed: [], skipped: [] };
    for (const name of await local.names()) {
      if (busy.has(name)) {
        report.skipped.push(name);
        continue;
      }
      const referenced = new Set<string>();
      for (const v of await local.versions(name))
        for (const d of (v.meta as ManifestMeta | null)?.blobs ?? []) referenced.add(d);
      for (const f of await local.files.list(name)) {
        if (!f.key.startsWith(BLOB_PREFIX)) continue;
        const digest = f.key.slice(f.key.lastIndexOf('@') + 1);
        if (referenced.has(digest) || now - f.storedAt.getTime() < graceMs) continue;
        const item: GarbageItem = {
          key: f.key,
          name,
          sha256: f.sha256,
          size: f.size,
          storedAt: f.storedAt.toISOString(),
        };
        if (dryRun || (await local.files.remove(f.key))) report.removed.push(item);
      }
    }
    if (report.removed.length)
      log.info(
        {
          registry: registry.name,
          dry_run: dryRun,
          removed: report.removed.length,
          bytes: report.removed.reduce((n, i) => n + i.size, 0),
        },
        'oci garbage collection',
      );
    return report;
  },
};
