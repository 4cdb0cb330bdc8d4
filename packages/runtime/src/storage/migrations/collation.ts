import type { Knex } from 'knex';

/**
 * Names, keys and versions compare byte for byte on MySQL/MariaDB as they do on SQLite (`Foo` and `foo`
 * are different npm packages; a block must not match both). SQLite needs nothing.
 */
export function binaryCollation(db: Knex, t: Knex.CreateTableBuilder): void {
  if (db.client.config.client !== 'mysql2') return;
  t.charset('utf8mb4');
  t.collate('utf8mb4_bin');
}
