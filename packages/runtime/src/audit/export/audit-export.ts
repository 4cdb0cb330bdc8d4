import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { auditSinkName } from '../../config/checks.js';
import type { AuditExportConfig } from '../../config/schema.js';
import type { ExportedRow } from './exported-row.js';
import { openSink, type AuditSink } from './sinks.js';

const PAGE = 500;
const MIN_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 60_000;
/** How long a stopping hub tries to hand its last rows over before leaving them to the next start. */
const STOP_GRACE_MS = 5_000;

export interface AuditExport {
  /** New rows were written: deliver them now (sinks in backoff keep waiting). */
  wake(): void;
  /** One last delivery, bounded in time; what does not go out now goes after the next start. */
  stop(): Promise<void>;
}

/**
 * Delivers this replica's chain to each `[[audit_log.export]]` sink (decision 0065): rows after the sink's
 * cursor (the last seq it received, in `audit_export_cursors`), a page at a time, the cursor moved after each
 * page is handed over. A sink that is down is retried with exponential backoff (1 s to 60 s); a restart resumes
 * at the cursor. Delivery is at least once: a crash between a send and its cursor update sends that page again
 * (receivers can tell by chain and seq).
 */
export function startAuditExport(o: {
  db: Knex;
  log: Logger;
  chain: string;
  sinks: readonly AuditExportConfig[];
}): AuditExport {
  const workers = o.sinks.map((x) => exporter(o, x));
  return {
    wake: () => workers.forEach((w) => w.wake()),
    stop: async () => void (await Promise.all(workers.map((w) => w.stop()))),
  };
}

function exporter(o: { db: Knex; log: Logger; chain: string }, x: AuditExportConfig) {
  const { db, chain } = o;
  const sink: AuditSink = openSink(x);
  const name = auditSinkName(x);
  const log = o.log.child({ audit_export: name });
  let cursor: number | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let backoff = 0;
  let retry: NodeJS.Timeout | undefined;

  async function readCursor(): Promise<number> {
    const row = (await db('audit_export_cursors').where({ sink: name, chain }).first('last_seq')) as
      { last_seq: number | string } | undefined;
    return row ? Number(row.last_seq) : 0;
  }
  async function saveCursor(seq: number): Promise<void> {
    await db('audit_export_cursors')
      .insert({ sink: name, chain, last_seq: seq, updated_at: Date.now() })
      .onConflict(['sink', 'chain'])
      .merge(['last_seq', 'updated_at']);
  }

  /** Sends pages until none is left; throws when the sink or the database fails. */
  async function drain(deadline = Infinity): Promise<void> {
    cursor ??= await readCursor();
    while (Date.now() < deadline) {
      const rows = (await db('access_events')
        .where({ chain })
        .where('seq', '>', cursor)
        .orderBy('seq')
        .limit(PAGE)
        .select()) as ExportedRow[];
      if (rows.length === 0) return;
      await sink.send(rows);
      const last = Number(rows[rows.length - 1]!.seq);
      await saveCursor(last);
      cursor = last;
      if (rows.length < PAGE) return;
    }
  }

  function run(): void {
    if (stopped) return;
    if (running) return void (again = true);
    running = drain()
      .then(() => {
        if (backoff) log.info('audit export: the sink takes rows again');
        backoff = 0;
      })
      .catch((e: Error) => {
        backoff = Math.min(MAX_BACKOFF_MS, backoff ? backoff * 2 : MIN_BACKOFF_MS);
        log.warn({ err: e.message, retry_ms: backoff }, 'audit export: delivery failed; will retry');
        cursor = undefined; // read it again: another start may have moved it
        clearTimeout(retry);
        retry = setTimeout(run, backoff);
        retry.unref();
      })
      .finally(() => {
        running = undefined;
        if (again && !backoff) {
          again = false;
          run();
        }
      });
  }
  // Rows written before this start (or while the sink was down) go out at once.
  run();

  return {
    wake() {
      if (!backoff) run();
    },
    async stop() {
      stopped = true;
      clearTimeout(retry);
      await running;
      if (!backoff)
        await drain(Date.now() + STOP_GRACE_MS).catch((e: Error) =>
          log.warn({ err: e.message }, 'audit export: rows left for the next start'),
        );
      await sink.close().catch(() => {});
    },
  };
}
