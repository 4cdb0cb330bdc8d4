import type { Knex } from 'knex';
import type { Tables } from 'knex/types/tables.js';

/** A typed row for the runtime's declared tables; a plugin's own table takes any object. */
type InsertRow<T extends string> = T extends keyof Tables
  ? Knex.ResolveTableType<Knex.TableType<T>, 'insert'>
  : Record<string, unknown>;

/**
 * Inserts `row` unless a row matching `same` is there already, in one transaction. Resolves with the new
 * row's id (SQLite and MySQL both answer a plain insert with [the new id]), or null when one was there.
 * A `null` in `same` matches SQL NULL (knex reads it as whereNull).
 */
export async function insertOnce<T extends string>(
  db: Knex,
  table: T,
  same: object,
  row: InsertRow<T>,
): Promise<number | null> {
  return db.transaction(async (trx) => {
    if (await trx(table).where(same).first('id')) return null;
    const [inserted] = await trx.insert(row).into(table);
    return Number(inserted);
  });
}
