/**
 * Tags of published packages (decision 0054): one row per tag. Moving a tag is one conditional write, so an
 * immutable tag cannot be moved by two pushes racing, and each move reports what the tag named before (the audit row).
 */
import type { Knex } from 'knex';
import { HubError, type LocalTag, type LocalTags } from '@hub/runtime';
import type { LocalTagRecord } from './tables.js';

const isUniqueViolation = (e: unknown) => /unique|duplicate/i.test((e as Error).message ?? '');
const toTag = (r: LocalTagRecord): LocalTag => ({
  tag: r.tag,
  version: r.version,
  updatedAt: new Date(Number(r.updated_at)),
  updatedBy: r.updated_by,
});

export function createTags(
  db: Knex,
  registry: string,
  user: string | null,
  nameHash: (n: string) => string,
): LocalTags {
  const of = (name: string) => ({ registry, name_sha256: nameHash(name) });
  const immutableRefusal = (name: string, tag: string, was: string) =>
    new HubError(
      'conflict',
      `tag ${name}:${tag} exists (it names ${was}) and tags of this registry are immutable ([[registries]] immutable_tags); push under a new tag`,
      { detail: { kindCode: 'TAG_INVALID' } },
    );

  return {
    async list(name) {
      return (await db('local_tags').where(of(name)).orderBy('tag').limit(100_000)).map(toTag);
    },
    async get(name, tag) {
      const row = await db('local_tags')
        .where({ ...of(name), tag })
        .first();
      return row ? toTag(row) : null;
    },
    async set(name, tag, version, immutable = false) {
      const now = Date.now();
      for (let attempt = 0; attempt < 3; attempt++) {
        const row = await db('local_tags')
          .where({ ...of(name), tag })
          .first('version');
        if (!row) {
          try {
            await db('local_tags').insert({ ...of(name), tag, version, updated_at: now, updated_by: user });
            return null;
          } catch (e) {
            if (isUniqueViolation(e)) continue; // another push created it first: look again
            throw e;
          }
        }
        if (row.version === version) return version;
        if (immutable) throw immutableRefusal(name, tag, row.version);
        // Moved only from what was read, so the previous version reported is the one replaced.
        const moved = await db('local_tags')
          .where({ ...of(name), tag, version: row.version })
          .update({ version, updated_at: now, updated_by: user });
        if (moved === 1) return row.version;
      }
      throw new HubError('conflict', `tag ${name}:${tag} is being moved by other pushes; try again`);
    },
    async remove(name, o) {
      const q = db('local_tags').where(of(name));
      if (o.tag !== undefined) q.andWhere({ tag: o.tag });
      if (o.version !== undefined) q.andWhere({ version: o.version });
      const tags = (await q.clone().select('tag')).map((r) => r.tag);
      if (tags.length) await q.delete();
      return tags;
    },
  };
}
