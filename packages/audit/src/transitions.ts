import type { ProbeAnswer } from '@hub/runtime';

export type AuditPolicy = 'audit' | 'block';
export type RowState = 'missing' | 'disappeared';

/** An upstream audit row as stored (times in epoch ms). */
export interface AuditRow {
  registry: string;
  package_name: string;
  version: string;
  state: RowState;
  first_missed_at: number;
  last_checked_at: number;
  confirmed_at: number | null;
  misses: number;
  rung: string | null;
  detail: string | null;
  policy: AuditPolicy;
}

export interface ConfirmRule {
  confirmAfter: number;
  confirmMinAgeMs: number;
}

/** What one probe answer does to one row (packages/audit/README.md). */
export type Transition =
  | { to: 'none' } // nothing to record
  | { to: 'cleared'; was: RowState } // the row is deleted
  | { to: 'touched' } // only last_checked_at moves
  | { to: 'missing'; misses: number; firstMissedAt: number }
  | { to: 'disappeared'; misses: number; confirmedAt: number; confirmedNow: boolean };

/**
 * The state machine of one held coordinate. `sweep` is false for a recheck, which may clear a row but
 * never adds a miss and so can neither create a row nor confirm one early.
 *
 * - An answer that is not conclusive (or a file out of the audit) changes nothing but the check time.
 * - `present` clears any row: a disappeared one (a reappearance) and a missing one (the misses were
 *   not consecutive, so counting starts again).
 * - `absent` in a sweep adds a miss; the row is confirmed once it has `confirmAfter` consecutive misses
 *   and its first miss is at least `confirmMinAgeMs` old.
 */
export function transition(
  row: AuditRow | undefined,
  answer: ProbeAnswer,
  now: number,
  rule: ConfirmRule,
  sweep: boolean,
): Transition {
  if (answer === 'present') return row ? { to: 'cleared', was: row.state } : { to: 'none' };
  if (answer !== 'absent' || !sweep) return row ? { to: 'touched' } : { to: 'none' };
  if (!row) return confirmOrMiss(1, now, now, rule);
  if (row.state === 'disappeared')
    return { to: 'disappeared', misses: row.misses + 1, confirmedAt: row.confirmed_at ?? now, confirmedNow: false };
  return confirmOrMiss(row.misses + 1, row.first_missed_at, now, rule);
}

function confirmOrMiss(misses: number, firstMissedAt: number, now: number, rule: ConfirmRule): Transition {
  if (misses >= rule.confirmAfter && now - firstMissedAt >= rule.confirmMinAgeMs)
    return { to: 'disappeared', misses, confirmedAt: now, confirmedNow: true };
  return { to: 'missing', misses, firstMissedAt };
}

export interface SweepTally {
  /** Packages probed. */
  probed: number;
  /** Packages with at least one conclusive answer. */
  conclusive: number;
  /** Packages with at least one version absent. */
  missing: number;
}

/**
 * Whether a sweep is void (an outage, not disappearances): nothing answered conclusively, or, with at
 * least `minProbed` conclusive packages, more than `outageRatio` of them missing.
 */
export function isVoid(t: SweepTally, outageRatio: number, minProbed: number): boolean {
  if (t.probed > 0 && t.conclusive === 0) return true;
  return t.conclusive >= minProbed && t.conclusive > 0 && t.missing / t.conclusive > outageRatio;
}
