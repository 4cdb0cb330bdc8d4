/** One row of the audit log (table `access_events`): who did what to which coordinate, and the answer. */
export interface AccessEvent {
  /** Epoch milliseconds when the request ended. */
  at: number;
  user_id: string | null;
  token_id: string | null;
  ip_address: string | null;
  /** `download`, `metadata`, `request` (refused before routing), an admin action name, `delete`, `retention_reclaim`. */
  action: string;
  outcome: AccessOutcome;
  registry: string | null;
  package: string | null;
  version: string | null;
  status: number;
  /** The error code (docs/errors.md) when the request failed. */
  code: string | null;
  request_id: string | null;
  /** Free text: the target of an admin action, a reason. */
  detail: string | null;
  /** The group registry the request came through (`registry` is then the member that served it, or the group for a merged listing). */
  via_group?: string | null;
}

/**
 * `challenged` is a 401 that asked a client which sent no credentials for them (maven and NuGet
 * always ask first): not a refusal of anyone, so it is neither a denial nor counted as one.
 */
export type AccessOutcome = 'allowed' | 'denied' | 'challenged';

/** What a route knows about the request for its audit row; the runtime fills in the rest when it ends. */
export interface AuditContext {
  action: string;
  registry?: string;
  /** The group the request came through; `registry` is the member that served (decision 0051). */
  via_group?: string;
  package?: string;
  version?: string;
  user_id?: string | null;
  token_id?: string | null;
  detail?: string;
  /**
   * At most one row per `key` and client address (IPv6: per /64) every `windowMs`; the rest are counted
   * (hub_audit_suppressed_total) and the next row written says how many were left out. For refusals an
   * attacker can repeat at will (a bad flag signature).
   */
  throttle?: { key: string; windowMs: number };
}

/** Refusals of access: the codes that make an event `denied`. */
export const DENIAL_CODES: ReadonlySet<string> = new Set([
  'unauthenticated',
  'forbidden',
  'user_blocked',
  'ip_blocked',
  'package_blocked',
  'rate_limited',
  'invalid_signature',
]);

export function outcomeOf(status: number, code: string | undefined, challenged: boolean): AccessOutcome {
  if (code && DENIAL_CODES.has(code)) return challenged && code === 'unauthenticated' ? 'challenged' : 'denied';
  return 'allowed';
}

/** Column widths of access_events; longer values are cut so one odd request never fails a batch. */
export const EVENT_LIMITS = {
  user_id: 128,
  token_id: 32,
  ip_address: 64,
  action: 64,
  registry: 64,
  via_group: 64,
  package: 512,
  version: 1024,
  code: 64,
  request_id: 64,
  detail: 4000,
} as const;
