import type { Knex } from 'knex';

/** Who the audit's blocks are recorded as (`blocked_by`), so they can be told from an administrator's. */
export const AUDIT_ACTOR = 'system:upstream-audit';

/**
 * The `block` arm at confirmation (SPEC 3.3): blocks each of `versions` of the name that no block covers
 * yet. Returns the versions it blocked.
 */
export async function blockVersions(db: Knex, registry: string, packageName: string, versions: readonly string[], reason: string): Promise<string[]> {
  return db.transaction(async (trx) => {
    const existing = (await trx('blocks').where({ registry, package_name: packageName }).select('version')) as Array<{ version: string | null }>;
    if (existing.some((b) => b.version === null)) return []; // the whole name is blocked already
    const have = new Set(existing.map((b) => b.version));
    const now = Date.now();
    const add = versions.filter((v) => !have.has(v));
    if (add.length) await trx('blocks').insert(add.map((version) => ({ registry, package_name: packageName, version, reason, blocked_by: AUDIT_ACTOR, created_at: now })));
    return add;
  });
}

/**
 * At reappearance: lifts the audit's own blocks on the name (or on `versions` only). An administrator's
 * block stays, and the caller reports `unblock_skipped_reason: blocked_by_admin`.
 */
export async function liftAuditBlocks(db: Knex, registry: string, packageName: string, versions?: readonly string[]): Promise<{ lifted: string[]; adminBlockStays: boolean }> {
  return db.transaction(async (trx) => {
    const blocks = (await trx('blocks').where({ registry, package_name: packageName }).select('id', 'version', 'blocked_by')) as Array<{ id: number; version: string | null; blocked_by: string }>;
    const concerned = (v: string | null) => versions === undefined || v === null || versions.includes(v);
    const ours = blocks.filter((b) => b.blocked_by === AUDIT_ACTOR && concerned(b.version));
    if (ours.length) await trx('blocks').whereIn('id', ours.map((b) => b.id)).delete();
    return {
      lifted: ours.map((b) => b.version ?? '*'),
      adminBlockStays: blocks.some((b) => b.blocked_by !== AUDIT_ACTOR && concerned(b.version)),
    };
  });
}
