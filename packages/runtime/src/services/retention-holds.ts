import type { Knex } from 'knex';

export interface RetentionHold {
  registry: string;
  package: string;
  version: string;
  /** Who holds it, e.g. `lockfile:release-2.4`. */
  reason: string;
  createdAt: Date;
  expiresAt: Date | null;
}

/**
 * Versions cleanup rules and retention never remove (decision 0011), held for a reason until released or expired.
 * The only writer of `retention_holds`.
 */
export function createRetentionHolds(db: Knex, now: () => number = Date.now) {
  const live = () =>
    db('retention_holds').where((q) => {
      // A block body: the builder is thenable, and a callback that returned it would read as a promise left behind.
      q.whereNull('expires_at').orWhere('expires_at', '>', now());
    });
  return {
    /** Holds a version for `reason` (again: renews it). */
    async hold(
      registry: string,
      packageName: string,
      version: string,
      reason: string,
      expiresAt: Date | null = null,
    ): Promise<void> {
      const row = {
        registry,
        package_name: packageName,
        version,
        reason,
        created_at: now(),
        expires_at: expiresAt?.getTime() ?? null,
      };
      await db('retention_holds')
        .insert(row)
        .onConflict(['registry', 'package_name', 'version', 'reason'])
        .merge(['created_at', 'expires_at']);
    },
    /** Releases one reason's holds (every version when `version` is absent); resolves with how many. */
    async release(
      reason: string,
      where: { registry?: string; package?: string; version?: string } = {},
    ): Promise<number> {
      const q = db('retention_holds').where({ reason });
      if (where.registry !== undefined) q.andWhere({ registry: where.registry });
      if (where.package !== undefined) q.andWhere({ package_name: where.package });
      if (where.version !== undefined) q.andWhere({ version: where.version });
      return q.delete();
    },
    /** Whether any live hold keeps this version. */
    async isHeld(registry: string, packageName: string, version: string): Promise<boolean> {
      return (await live().andWhere({ registry, package_name: packageName, version }).first('reason')) !== undefined;
    },
    /** Held versions of a registry (optionally one package), as `package\u0000version` keys, for a cleanup run's one read. */
    async heldKeys(registry: string, packageName?: string): Promise<Set<string>> {
      const q = live().andWhere({ registry });
      if (packageName !== undefined) q.andWhere({ package_name: packageName });
      const rows: Array<{ package_name: string; version: string }> = await q.select('package_name', 'version');
      return new Set(rows.map((r) => `${r.package_name}\u0000${r.version}`));
    },
    async list(registry?: string): Promise<RetentionHold[]> {
      const q = live().orderBy(['registry', 'package_name', 'version']);
      if (registry !== undefined) q.andWhere({ registry });
      const rows: Array<{
        registry: string;
        package_name: string;
        version: string;
        reason: string;
        created_at: number | string;
        expires_at: number | string | null;
      }> = await q.select();
      return rows.map((r) => ({
        registry: r.registry,
        package: r.package_name,
        version: r.version,
        reason: r.reason,
        createdAt: new Date(Number(r.created_at)),
        expiresAt: r.expires_at === null ? null : new Date(Number(r.expires_at)),
      }));
    },
  };
}

export type RetentionHolds = ReturnType<typeof createRetentionHolds>;
