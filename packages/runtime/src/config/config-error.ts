/** The error configuration problems are thrown as: every issue, each with its file, line and key path. */

/** One problem in the configuration. */
export interface ConfigIssue {
  /** The key in TOML terms, e.g. `registries[1].mode`. */
  key?: string;
  /** 1-based line in the file where the key (or, for a missing key, its table) is written. */
  line?: number;
  message: string;
}

export class ConfigError extends Error {
  /** The first issue's key. */
  key?: string;
  /** The first issue's line. */
  line?: number;
  file?: string;
  /** Every problem found; `message` lists them one per line. */
  readonly issues: readonly ConfigIssue[];

  constructor(
    message: string,
    opts: { key?: string; line?: number; file?: string; issues?: readonly ConfigIssue[]; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ConfigError';
    this.key = opts.key;
    this.line = opts.line;
    this.file = opts.file;
    this.issues = opts.issues ?? [{ key: opts.key, line: opts.line, message }];
  }
}
