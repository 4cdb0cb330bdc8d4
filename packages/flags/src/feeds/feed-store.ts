/**
 * A feed's flags written through the flags table, as pushed flags are: one transaction that raises what the
 * feed holds, updates what changed, lifts (tombstones) what it no longer holds, and moves the flag change
 * counter so every replica reloads its held hard blocks. Only flags of this feed's source are touched.
 */
import type { Knex } from 'knex';
import { bumpFlagChanges, heldBytesOf } from '../hard-blocks.js';
import type { FeedFlag } from './feed-flags.js';
import { FeedError } from './feed-reader.js';

const COMPARED = [
  'registry',
  'package_name',
  'version',
  'version_range',
  'kind',
  'effect',
  'summary',
  'severity',
  'reference_url',
  'fixed_version',
  'aliases',
] as const;

interface StoredFlag extends Record<(typeof COMPARED)[number], string | null> {
  id: number;
  external_id: string;
  state: string;
  expires_at: number | string | null;
}

export interface SyncResult {
  raised: number;
  updated: number;
  lifted: number;
}

/** Rows inserted per statement: well under SQLite's and MySQL's placeholder limits. */
const CHUNK = 50;

/**
 * Makes the source's active flags exactly `wanted`, except flags of the advisories in `keep` (records hub
 * could not read this time: their last good flags stay). `fitsHeld` says whether more hard-block bytes fit in
 * memory ([limits] flag_hard_block_bytes); if not, nothing is written.
 */
export async function syncFeedFlags(
  db: Knex,
  source: string,
  wanted: ReadonlyMap<string, FeedFlag>,
  keep: ReadonlySet<string>,
  fitsHeld: (bytes: number) => boolean,
): Promise<SyncResult> {
  return db.transaction(async (trx) => {
    const now = Date.now();
    const old = new Map(
      (
        (await trx('flags')
          .where({ source })
          .select('id', 'external_id', 'state', 'expires_at', ...COMPARED)) as StoredFlag[]
      ).map((f) => [f.external_id, f]),
    );
    const inserts: Array<Record<string, unknown>> = [];
    const result: SyncResult = { raised: 0, updated: 0, lifted: 0 };
    let heldBytes = 0;
    for (const [id, f] of wanted) {
      const was = old.get(id);
      const active = was?.state === 'active' && was.expires_at == null;
      if (f.effect === 'hard_block' && !(active && was.effect === 'hard_block'))
        heldBytes += heldBytesOf({ ...f, source });
      if (active && COMPARED.every((k) => (was[k] ?? null) === f[k])) continue;
      if (was) {
        // A flag still active keeps when it was raised: exposure counts fetches before that time.
        await trx('flags')
          .where({ id: was.id })
          .update({
            ...f,
            state: 'active',
            expires_at: null,
            requested_effect: null,
            updated_at: now,
            lifted_at: null,
            ...(active ? {} : { raised_at: now }),
          });
        result.updated++;
      } else {
        inserts.push({ ...f, source, state: 'active', raised_at: now, updated_at: now });
        result.raised++;
      }
    }
    if (heldBytes > 0 && !fitsHeld(heldBytes))
      throw new FeedError(
        "the feed's hard_block flags would pass [limits] flag_hard_block_bytes (held in memory); nothing was changed; raise the limit or lower the feed's effect",
      );
    for (let i = 0; i < inserts.length; i += CHUNK) await trx('flags').insert(inserts.slice(i, i + CHUNK));
    const lift: number[] = [];
    for (const [id, f] of old) {
      if (f.state !== 'active' || wanted.has(id) || keep.has(id.slice(0, id.indexOf(':')))) continue;
      lift.push(f.id);
    }
    for (let i = 0; i < lift.length; i += 500)
      await trx('flags')
        .whereIn('id', lift.slice(i, i + 500))
        .update({ state: 'tombstone', lifted_at: now, updated_at: now });
    result.lifted = lift.length;
    if (result.raised + result.updated + result.lifted > 0) await bumpFlagChanges(trx);
    return result;
  });
}
