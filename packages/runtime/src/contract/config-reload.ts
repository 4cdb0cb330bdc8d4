/** Hot reload as plugins and the cluster see it (decision 0057); config/reload.ts implements it. */
import type { AuditContext } from '../audit/access-event.js';

/** One replica's answer to a reload. */
export interface ReplicaReload {
  id: string;
  result: 'applied' | 'refused' | 'unreachable';
  /** The keys the reload changed (applied) or would have changed (refused for a restart-only key). */
  changed_keys: string[];
  /** Why it was refused or not reached; null when applied. */
  error: string | null;
}

export interface ConfigReload {
  /** This replica only (SIGHUP, `hub reload --local`, a peer's request). `audit`: the request's row to fill in; without it a row is written. */
  local(o: { by: string | null; audit?: AuditContext }): Promise<ReplicaReload>;
  /** This replica, then every other live one through the cluster. */
  everywhere(o: { by: string | null; audit?: AuditContext }): Promise<{ replicas: ReplicaReload[] }>;
}
