import crypto from 'node:crypto';
import type { Knex } from 'knex';

/** A random secret every replica shares, kept in the `settings` table: made by the first replica to ask, read by the rest. */
export async function sharedSecret(db: Knex, name: string): Promise<string> {
  // Insert-if-absent then read: replicas starting together all end up with the first value written.
  await db('settings')
    .insert({ name, value: crypto.randomBytes(32).toString('hex') })
    .onConflict('name')
    .ignore();
  return ((await db('settings').where({ name }).first()) as { value: string }).value;
}
