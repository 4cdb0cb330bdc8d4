/** A composition or start-up problem that is the operator's to fix (the CLI prints its message only). */
export class StartupError extends Error {
  constructor(
    readonly code:
      | 'plugin_contract'
      | 'plugin_duplicate'
      | 'plugin_requires'
      | 'plugin_load'
      | 'unknown_kind'
      | 'unsupported'
      | 'storage'
      | 'database_locked',
    message: string,
  ) {
    super(message);
    this.name = 'StartupError';
  }
}
