import type { Knex } from 'knex';
import type { Authenticator } from '../auth/authenticate.js';
import { insertOnce } from '../storage/insert-once.js';
import type { UserRecord } from '../storage/tables.js';

export interface User {
  id: string;
  roles: string[];
  blocked: boolean;
  created_at: number;
}

const toUser = (r: UserRecord): User => ({
  id: r.id,
  roles: JSON.parse(r.roles) as string[],
  blocked: Boolean(r.blocked),
  created_at: Number(r.created_at),
});

/** Users: the one writer of the `users` table. A change holds for this replica's remembered token lookups at once. */
export function createUsers(db: Knex, auth: Pick<Authenticator, 'refresh'>) {
  async function find(id: string): Promise<User | null> {
    const row = await db('users').where({ id }).first();
    return row ? toUser(row) : null;
  }
  async function update(id: string, fields: Partial<Omit<UserRecord, 'id'>>): Promise<User | null> {
    // Not the affected-row count: MySQL counts only rows that changed.
    await db('users').where({ id }).update(fields);
    await auth.refresh({ user_id: id });
    return find(id);
  }
  return {
    find,
    async list(): Promise<User[]> {
      return (await db('users').orderBy('id').select()).map(toUser);
    },
    /** `exists` when a user has that id already (it is left as it is). */
    async create(u: { id: string; roles: readonly string[] }): Promise<User | 'exists'> {
      const row = { id: u.id, roles: JSON.stringify(u.roles), blocked: false, created_at: Date.now() };
      const id = await insertOnce(db, 'users', { id: u.id }, row);
      return id === null ? 'exists' : toUser(row);
    },
    setRoles: (id: string, roles: readonly string[]) => update(id, { roles: JSON.stringify(roles) }),
    /** A blocked user's tokens are refused (on other replicas within AUTH_MEMO_MS). */
    setBlocked: (id: string, blocked: boolean) => update(id, { blocked }),
  };
}

export type Users = ReturnType<typeof createUsers>;
