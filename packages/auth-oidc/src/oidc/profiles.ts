import type { Knex } from 'knex';

/** What the provider said about a person at their last sign-in: the one writer of `oidc_users`. */
export function createProfiles(db: Knex) {
  return {
    /** Resolves with whether this is the person's first sign-in. */
    async record(p: {
      user_id: string;
      issuer: string;
      sub: string;
      name: string | null;
      email: string | null;
    }): Promise<boolean> {
      const now = Date.now();
      const fields = {
        name: p.name?.slice(0, 512) ?? null,
        email: p.email?.slice(0, 512) ?? null,
        last_sign_in_at: now,
      };
      const updated = await db('oidc_users').where({ user_id: p.user_id }).update(fields);
      if (updated > 0) return false;
      await db('oidc_users')
        .insert({ user_id: p.user_id, issuer: p.issuer, sub: p.sub, ...fields, first_sign_in_at: now })
        .onConflict('user_id')
        .merge(fields);
      return true;
    },
    async find(
      userId: string,
    ): Promise<{ user_id: string; sub: string; name: string | null; email: string | null } | null> {
      return (await db('oidc_users').where({ user_id: userId }).first('user_id', 'sub', 'name', 'email')) ?? null;
    },
  };
}

export type Profiles = ReturnType<typeof createProfiles>;
