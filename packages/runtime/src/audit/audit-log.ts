import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { HubMetrics } from '../metrics.js';
import { EVENT_LIMITS, type AccessEvent } from './access-event.js';
import { createChainWriter } from './chain-writer.js';
import type { CheckpointKey } from './checkpoint-key.js';

export interface AuditLogOptions {
  db: Knex;
  log: Logger;
  metrics: HubMetrics;
  enabled: boolean;
  /** Buffered rows are written at least this often. */
  flushIntervalMs?: number;
  /** A buffer this full is written at once. */
  batchRows?: number;
  /** Beyond this many unwritten rows (the database is down), the oldest are dropped and counted. */
  maxBufferedRows?: number;
  /** The hash chain this replica appends to (`[audit_log] chain`; decision 0065). */
  chain?: string;
  /** Signs the chain's checkpoints (`[audit_log] checkpoint_key_file`). */
  checkpointKey?: CheckpointKey;
  checkpointEveryRows?: number;
  checkpointEveryMs?: number;
  /** Called after each batch is written (the export sinks wake up). */
  onWritten?: () => void;
}

export interface AuditLog {
  readonly enabled: boolean;
  /** Queues one event (kept as given: do not reuse the object); never blocks and never throws. */
  record(e: AccessEvent): void;
  /** Writes everything queued so far. */
  flush(): Promise<void>;
  /** Stops the timer and writes everything queued (hub.close() calls it, so a clean stop loses nothing), then a checkpoint. */
  close(): Promise<void>;
  /** The key checkpoints are signed and verified with, when one is configured. */
  readonly checkpointKey?: CheckpointKey;
}

const LIMITS = Object.entries(EVENT_LIMITS) as Array<[keyof typeof EVENT_LIMITS, number]>;

/** Cuts overlong values in place (the event is the caller's fresh object). */
function clip(e: AccessEvent): AccessEvent {
  for (const [k, max] of LIMITS) {
    const v = e[k];
    if (typeof v === 'string' && v.length > max) (e as unknown as Record<string, unknown>)[k] = v.slice(0, max);
  }
  return e;
}

/**
 * The audit log writer. The hot path only pushes to an array; rows reach the database in batches
 * (every `flushIntervalMs` or `batchRows` rows), one flush at a time. A failed write keeps the rows
 * for the next attempt, within `maxBufferedRows`.
 */
export function createAuditLog(o: AuditLogOptions): AuditLog {
  const batchRows = o.batchRows ?? 500;
  const maxBuffered = o.maxBufferedRows ?? 100_000;
  let buffer: AccessEvent[] = [];
  let flushing: Promise<void> | undefined;
  let closed = false;

  const chain = createChainWriter({
    db: o.db,
    log: o.log,
    chain: o.chain ?? 'local',
    key: o.checkpointKey,
    checkpointEveryRows: o.checkpointEveryRows ?? 10_000,
    checkpointEveryMs: o.checkpointEveryMs ?? 300_000,
  });

  async function write(rows: AccessEvent[]): Promise<void> {
    try {
      await chain.write(rows);
      o.metrics.auditEvents.inc(rows.length);
      o.onWritten?.();
    } catch (e) {
      // Keep the batch (its insert was one transaction), ahead of newer rows, and try again next flush.
      buffer = rows.concat(buffer);
      const over = buffer.length - maxBuffered;
      if (over > 0) {
        buffer.splice(0, over);
        o.metrics.auditDropped.inc(over);
        o.log.error({ dropped: over }, 'audit log: the database refused writes for too long; oldest events dropped');
      }
      o.log.warn({ err: (e as Error).message, pending: buffer.length }, 'audit log: write failed; will retry');
      throw e;
    }
  }

  function flush(): Promise<void> {
    if (flushing) return flushing.then(() => (buffer.length ? flush() : undefined));
    if (buffer.length === 0) return Promise.resolve();
    const rows = buffer;
    buffer = [];
    flushing = write(rows)
      .catch(() => {})
      .finally(() => (flushing = undefined));
    return flushing;
  }

  const timer = o.enabled ? setInterval(() => void flush(), o.flushIntervalMs ?? 500) : undefined;
  timer?.unref();

  return {
    enabled: o.enabled,
    checkpointKey: o.checkpointKey,
    record(e) {
      if (!o.enabled || closed) return;
      buffer.push(clip(e));
      if (buffer.length >= batchRows && !flushing) void flush();
    },
    flush,
    async close() {
      closed = true;
      clearInterval(timer);
      await flushing;
      if (buffer.length > 0) {
        const rows = buffer;
        buffer = [];
        await write(rows).catch(() =>
          o.log.error({ lost: buffer.length }, 'audit log: events could not be written at shutdown'),
        );
      }
      // The tail as this replica leaves it, so rows removed from the end later show as missing.
      await chain
        .checkpoint()
        .catch((e: Error) => o.log.warn({ err: e.message }, 'audit log: no checkpoint at shutdown'));
    },
  };
}
