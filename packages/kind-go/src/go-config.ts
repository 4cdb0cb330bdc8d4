/** The go kind's own [[registries]] keys. */
export interface GoConfig {
  /** Base URL of the checksum database that `/sumdb/<db-name>/...` passes through to. */
  checksum_db?: string;
  /** Module path patterns (GONOSUMDB syntax) sweeps never ask `checksum_db` about. */
  checksum_db_exclude?: string[];
}
