import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AccessEvent } from './access-event.js';
import { checkpointText, GENESIS_HASH, HASHED_FIELDS, rowHash } from './chain-hash.js';
import type { CheckpointKey } from './checkpoint-key.js';
import { createEventWriter } from './event-writer.js';

export interface ChainWriterOptions {
  db: Knex;
  log: Logger;
  /** `[audit_log] chain`: the chain this replica appends to. */
  chain: string;
  /** Signs checkpoints; without one they are written unsigned. */
  key?: CheckpointKey;
  checkpointEveryRows: number;
  checkpointEveryMs: number;
  now?: () => number;
}

export interface ChainWriter {
  /** Chains the batch onto this replica's chain and inserts it in one transaction; rejects (nothing written) on failure. */
  write(events: AccessEvent[]): Promise<void>;
  /** Writes a checkpoint of the chain's tail when rows were written since the last one. */
  checkpoint(): Promise<void>;
}

interface Tail {
  seq: number;
  hash: string;
}

/**
 * The hash chain of the audit log (decision 0065), computed where rows are written: the tail (last seq and hash)
 * is read once and then kept in memory, so hashing adds no database round trip per row or per batch. A failed
 * batch forgets the tail: the next attempt reads it again, which is also how a second writer on the same chain
 * (the unique (chain, seq) index refused this batch) is caught up with.
 */
/** Tries of one batch against a chain another writer is extending at the same time. */
const WRITE_ATTEMPTS = 4;

export function createChainWriter(o: ChainWriterOptions): ChainWriter {
  const { db, chain } = o;
  const now = o.now ?? Date.now;
  const insert = createEventWriter(db);
  let tail: Tail | undefined;
  let sinceCheckpoint = 0;
  let lastCheckpointAt = now();

  async function readTail(): Promise<Tail> {
    const row = (await db('access_events')
      .where({ chain })
      .whereNotNull('seq')
      .orderBy('seq', 'desc')
      .first('seq', 'hash')) as { seq: number | string; hash: string } | undefined;
    // A chain pruned to its checkpoint (or whose last rows were removed) goes on from the checkpoint: verification shows any gap.
    const cp = (await db('audit_checkpoints').where({ chain }).orderBy('seq', 'desc').first('seq', 'hash')) as
      { seq: number | string; hash: string } | undefined;
    const best = [row, cp].filter((r) => r !== undefined).sort((a, b) => Number(b.seq) - Number(a.seq))[0];
    return best ? { seq: Number(best.seq), hash: best.hash } : { seq: 0, hash: GENESIS_HASH };
  }

  async function checkpoint(): Promise<void> {
    if (!tail || sinceCheckpoint === 0) return;
    const c = { chain, seq: tail.seq, hash: tail.hash, at: now(), key_id: o.key?.keyId ?? null };
    await db('audit_checkpoints')
      .insert({ ...c, signature: o.key?.sign(checkpointText(c)) ?? null })
      .onConflict(['chain', 'seq'])
      .ignore();
    sinceCheckpoint = 0;
    lastCheckpointAt = c.at;
  }

  return {
    async write(events) {
      // Another replica writing the same chain takes the seqs this batch meant to use (the unique index refuses
      // it): the batch is chained again after the tail as it now is, a few times, before the caller keeps it for later.
      for (let attempt = 1; ; attempt++) {
        tail ??= await readTail();
        const first = tail;
        // Each event is written with its seq and hashes beside it (no chained copy of the event per row).
        const hashes = new Array<string>(events.length);
        let { seq, hash } = first;
        for (let i = 0; i < events.length; i++) {
          const e = events[i]!;
          wellFormed(e);
          seq += 1;
          hash = rowHash(chain, seq, e, hash);
          hashes[i] = hash;
        }
        try {
          await insert({ events, chain, firstSeq: first.seq + 1, prevHash: first.hash, hashes });
        } catch (e) {
          tail = undefined;
          if (attempt >= WRITE_ATTEMPTS) throw e;
          continue;
        }
        tail = { seq, hash };
        sinceCheckpoint += events.length;
        break;
      }
      if (sinceCheckpoint >= o.checkpointEveryRows || now() - lastCheckpointAt >= o.checkpointEveryMs)
        await checkpoint().catch((err: Error) =>
          o.log.warn({ err: err.message, chain }, 'audit log: checkpoint not written; will try again'),
        );
    },
    checkpoint,
  };
}

const TEXT_FIELDS = HASHED_FIELDS.filter((f) => f !== 'at' && f !== 'status');

/**
 * A value cut in the middle of a surrogate pair cannot be stored as UTF-8 as it is: the database would hand back
 * something else than was hashed. Such strings get U+FFFD in place of the lone half, before hashing.
 */
function wellFormed(e: AccessEvent): void {
  const r = e as unknown as Record<string, unknown>;
  for (const f of TEXT_FIELDS) {
    const v = r[f] as (string & { isWellFormed(): boolean; toWellFormed(): string }) | null | undefined;
    if (typeof v === 'string' && !v.isWellFormed()) r[f] = v.toWellFormed();
  }
}
