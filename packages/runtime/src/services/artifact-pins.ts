import type { Knex } from 'knex';

/** Pinned artifacts are never removed by retention (packages/audit/README.md: a version that disappeared upstream is kept). */
export function createArtifactPins(db: Knex) {
  const set =
    (pinned: boolean) =>
    async (registry: string, packageName: string, version: string): Promise<number> =>
      db('artifacts').where({ registry, package_name: packageName, version }).update({ pinned });
  return {
    /** Pins every cached artifact of one version; resolves with how many. */
    pin: set(true),
    unpin: set(false),
  };
}

export type ArtifactPins = ReturnType<typeof createArtifactPins>;
