import type { Knex } from 'knex';
import { checkpointText, GENESIS_HASH, HASHED_FIELDS, rowHash, type ChainedFields } from './chain-hash.js';
import type { CheckpointKey } from './checkpoint-key.js';

/** What verification found wrong, each naming where. */
export type ChainProblemKind =
  /** A row's fields (or prev_hash) no longer give its stored hash: the row was changed. */
  | 'hash_mismatch'
  /** A row's prev_hash is not the hash of the row before it. */
  | 'link_broken'
  /** Rows are missing between two rows (seq jumps). */
  | 'seq_gap'
  /** The chain's first row is not seq 1 and no checkpoint anchors it (its prefix was removed without pruning). */
  | 'chain_start'
  /** A checkpoint's hash is not the hash of the row at its seq. */
  | 'checkpoint_mismatch'
  /** A checkpoint's signature does not verify with the configured key. */
  | 'checkpoint_signature'
  /** A checkpoint signed by another key id than the configured one, or unsigned while a key is configured. */
  | 'checkpoint_unknown_key'
  /** A checkpoint names rows past the chain's last row: rows were removed from its end. */
  | 'rows_missing_at_end';

export interface ChainProblem {
  kind: ChainProblemKind;
  chain: string;
  /** The row where it shows (absent for a checkpoint past the end). */
  row_id: number | null;
  seq: number | null;
  /** The checkpoint concerned. */
  checkpoint_id?: number;
  expected: string | null;
  found: string | null;
  message: string;
}

export interface ChainReport {
  chain: string;
  ok: boolean;
  rows: number;
  checkpoints: number;
  /** Checkpoints whose signature was checked and holds. */
  signed_checkpoints: number;
  first_seq: number | null;
  last_seq: number | null;
  /** The problems found, in chain order, at most `maxProblems` of them; `problems_total` counts all. */
  problems: ChainProblem[];
  problems_total: number;
}

export interface VerifyOptions {
  /** One chain only; default every chain in the log. */
  chain?: string;
  /** Verifies checkpoint signatures; without it signatures are not checked (and none are required). */
  key?: CheckpointKey;
  pageRows?: number;
  maxProblems?: number;
}

type RowRecord = ChainedFields & { id: number | string; seq: number | string; prev_hash: string; hash: string };
type CheckpointRecord = {
  id: number | string;
  chain: string;
  seq: number | string;
  hash: string;
  at: number | string;
  key_id: string | null;
  signature: string | null;
};

/** The chains in the log (rows or checkpoints), sorted. */
export async function chainsOf(db: Knex): Promise<string[]> {
  const a = (await db('access_events').whereNotNull('chain').distinct('chain')) as Array<{ chain: string }>;
  const b = (await db('audit_checkpoints').distinct('chain')) as Array<{ chain: string }>;
  return [...new Set([...a, ...b].map((r) => r.chain))].sort();
}

/** Rows written before the chain existed (migration 019): not covered by any hash. */
export async function unchainedRows(db: Knex): Promise<number> {
  const [r] = (await db('access_events').whereNull('chain').count({ n: '*' })) as Array<{ n: number | string }>;
  return Number(r?.n ?? 0);
}

/** A table's rows of one chain in seq order, a page at a time: memory stays at one page however long the chain. */
async function* bySeq<T>(
  db: Knex,
  table: string,
  chain: string,
  columns: readonly string[],
  page: number,
): AsyncGenerator<T> {
  let after = -1;
  for (;;) {
    const rows = (await db(table)
      .where({ chain })
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(page)
      .select(columns)) as Array<T & { seq: number | string }>;
    for (const r of rows) yield r as T;
    if (rows.length < page) return;
    after = Number(rows[rows.length - 1]!.seq);
  }
}

const ROW_COLUMNS = ['id', 'seq', 'prev_hash', 'hash', ...HASHED_FIELDS];
const CHECKPOINT_COLUMNS = ['id', 'chain', 'seq', 'hash', 'at', 'key_id', 'signature'];

/**
 * Walks one chain from its first row to its last (decision 0065): each row's hash recomputed from its fields,
 * each link to the row before, each seq following the last, and each checkpoint's hash and signature. The first
 * row is seq 1 on the genesis hash, or is (or follows) a checkpointed row (a pruned prefix). After a problem the walk goes on
 * from the stored values, so one changed row is one problem, not one per row after it.
 */
export async function verifyChain(db: Knex, chain: string, o: VerifyOptions = {}): Promise<ChainReport> {
  const page = o.pageRows ?? 1000;
  const maxProblems = o.maxProblems ?? 100;
  const report: ChainReport = {
    chain,
    ok: true,
    rows: 0,
    checkpoints: 0,
    signed_checkpoints: 0,
    first_seq: null,
    last_seq: null,
    problems: [],
    problems_total: 0,
  };
  const problem = (p: Omit<ChainProblem, 'chain'>) => {
    report.ok = false;
    report.problems_total += 1;
    if (report.problems.length < maxProblems) report.problems.push({ chain, ...p });
  };

  const checkpoints = bySeq<CheckpointRecord>(db, 'audit_checkpoints', chain, CHECKPOINT_COLUMNS, page);
  let cp = (await checkpoints.next()).value as CheckpointRecord | undefined;
  /** The checkpoints at seqs below `seq`: their signatures are checked; the one just below the first row anchors it. */
  const checkpointsBefore = async (seq: number, onEach: (c: CheckpointRecord) => void) => {
    while (cp && Number(cp.seq) < seq) {
      checkSignature(cp);
      onEach(cp);
      cp = (await checkpoints.next()).value as CheckpointRecord | undefined;
    }
  };
  const checkSignature = (c: CheckpointRecord) => {
    report.checkpoints += 1;
    if (!o.key) return;
    const id = Number(c.id);
    const seq = Number(c.seq);
    if (c.signature === null || c.key_id !== o.key.keyId)
      return problem({
        kind: 'checkpoint_unknown_key',
        row_id: null,
        seq,
        checkpoint_id: id,
        expected: o.key.keyId,
        found: c.key_id,
        message:
          c.signature === null
            ? `checkpoint ${id} (seq ${seq}) is unsigned`
            : `checkpoint ${id} (seq ${seq}) is signed by key "${c.key_id}", not the configured "${o.key.keyId}"`,
      });
    const text = checkpointText({ chain, seq, hash: c.hash, at: Number(c.at), key_id: c.key_id });
    if (o.key.verify(text, c.signature)) report.signed_checkpoints += 1;
    else
      problem({
        kind: 'checkpoint_signature',
        row_id: null,
        seq,
        checkpoint_id: id,
        expected: null,
        found: c.signature,
        message: `checkpoint ${id} (seq ${seq}): the signature does not verify with key "${o.key.keyId}"`,
      });
  };

  let prev: { seq: number; hash: string } | undefined;
  for await (const r of bySeq<RowRecord>(db, 'access_events', chain, ROW_COLUMNS, page)) {
    const id = Number(r.id);
    const seq = Number(r.seq);
    report.rows += 1;
    if (!prev) {
      report.first_seq = seq;
      let anchor: CheckpointRecord | undefined;
      await checkpointsBefore(seq, (c) => void (Number(c.seq) === seq - 1 && (anchor = c)));
      if (seq === 1) {
        if (r.prev_hash !== GENESIS_HASH)
          problem({
            kind: 'link_broken',
            row_id: id,
            seq,
            expected: GENESIS_HASH,
            found: r.prev_hash,
            message: `row ${id} is the chain's first (seq 1) but its prev_hash is not the genesis hash`,
          });
      } else if (!anchor && !(cp && Number(cp.seq) === seq)) {
        // Pruning keeps the row its checkpoint names (prune.ts), so a pruned chain starts at a checkpointed row.
        problem({
          kind: 'chain_start',
          row_id: id,
          seq,
          expected: '1',
          found: String(seq),
          message: `the chain starts at row ${id} (seq ${seq}) and no checkpoint anchors it: rows 1 to ${seq - 1} were removed without pruning`,
        });
      } else if (anchor && anchor.hash !== r.prev_hash) {
        problem({
          kind: 'link_broken',
          row_id: id,
          seq,
          expected: anchor.hash,
          found: r.prev_hash,
          message: `row ${id} (seq ${seq}) does not follow checkpoint ${Number(anchor.id)} that starts the pruned chain`,
        });
      }
    } else {
      await checkpointsBefore(seq, (c) => {
        // A checkpoint between two rows (seq skipped): the gap below reports the missing rows.
        if (Number(c.seq) > prev!.seq)
          problem({
            kind: 'checkpoint_mismatch',
            row_id: null,
            seq: Number(c.seq),
            checkpoint_id: Number(c.id),
            expected: c.hash,
            found: null,
            message: `checkpoint ${Number(c.id)} names seq ${Number(c.seq)}, which is missing`,
          });
      });
      if (seq !== prev.seq + 1)
        problem({
          kind: 'seq_gap',
          row_id: id,
          seq,
          expected: String(prev.seq + 1),
          found: String(seq),
          message: `${seq - prev.seq - 1} row(s) missing before row ${id}: seq ${prev.seq + 1} to ${seq - 1}`,
        });
      else if (r.prev_hash !== prev.hash)
        problem({
          kind: 'link_broken',
          row_id: id,
          seq,
          expected: prev.hash,
          found: r.prev_hash,
          message: `row ${id} (seq ${seq}) does not link to the row before it`,
        });
    }
    const hash = rowHash(chain, seq, r, r.prev_hash);
    if (hash !== r.hash)
      problem({
        kind: 'hash_mismatch',
        row_id: id,
        seq,
        expected: hash,
        found: r.hash,
        message: `row ${id} (seq ${seq}) was changed: its fields no longer give its hash`,
      });
    if (cp && Number(cp.seq) === seq) {
      checkSignature(cp);
      if (cp.hash !== r.hash)
        problem({
          kind: 'checkpoint_mismatch',
          row_id: id,
          seq,
          checkpoint_id: Number(cp.id),
          expected: cp.hash,
          found: r.hash,
          message: `checkpoint ${Number(cp.id)} recorded another hash for row ${id} (seq ${seq})`,
        });
      cp = (await checkpoints.next()).value as CheckpointRecord | undefined;
    }
    prev = { seq, hash: r.hash };
  }
  report.last_seq = prev?.seq ?? null;
  // Checkpoints past the last row: rows were removed from the end (or the chain has only checkpoints left).
  while (cp) {
    checkSignature(cp);
    if (Number(cp.seq) > (prev?.seq ?? 0))
      problem({
        kind: 'rows_missing_at_end',
        row_id: null,
        seq: Number(cp.seq),
        checkpoint_id: Number(cp.id),
        expected: cp.hash,
        found: null,
        message: `checkpoint ${Number(cp.id)} names seq ${Number(cp.seq)}, past the chain's last row${prev ? ` (seq ${prev.seq})` : ''}: rows were removed from its end`,
      });
    cp = (await checkpoints.next()).value as CheckpointRecord | undefined;
  }
  return report;
}
