/**
 * Garbage collection of published files a kind's own documents no longer refer to (OCI blobs no manifest names,
 * decision 0055). The runtime runs it once per interval across replicas (the schedule's lease in the shared
 * database) and for `hub oci gc`; the kind says what is garbage, `rc.local`'s store removes it.
 */
import type { Logger } from 'pino';
import type { RegistryInfo } from './registry-info.js';
import type { LocalRegistry } from './local.js';

export interface GarbageContext<Cfg = unknown> {
  registry: RegistryInfo<Cfg>;
  /** The registry's store, as the user the collection is recorded as. */
  local: LocalRegistry;
  log: Logger;
  /** List what would go; remove nothing. */
  dryRun: boolean;
  now: number;
}

export interface GarbageItem {
  key: string;
  /** The package (an OCI repository) the file belongs to. */
  name: string;
  sha256: string;
  size: number;
  storedAt: string;
}

export interface GarbageReport {
  dryRun: boolean;
  /** Removed (or, in a dry run, what would be). */
  removed: GarbageItem[];
  /** Packages passed over because an upload to them is in flight. */
  skipped: string[];
}

export interface GarbageCollector<Cfg = unknown> {
  /** How often it runs on its own, from the registry's keys; 0: only when asked. */
  intervalSecs(config: Cfg): number;
  collect(gc: GarbageContext<Cfg>): Promise<GarbageReport>;
}
