import type { Writable } from 'node:stream';

/** Where a command writes; tests and embedders pass their own. */
export interface Io {
  out(s: string): void;
  err(s: string): void;
  env: NodeJS.ProcessEnv;
  /** Standard output as a stream, for large downloads (export-audit-log --output -); else `out` is used. */
  stdout?: Writable;
}

export const stdio: Io = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  env: process.env,
  stdout: process.stdout,
};

/** A command: its arguments after the command name in, the exit code out. */
export type Command = (argv: string[], io: Io) => Promise<number>;
