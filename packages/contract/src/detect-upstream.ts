/**
 * `hub init`'s question to each kind: which upstream does this machine's own client already use? The
 * kind reads its tool's settings through this context (so tests can fake the machine) and answers
 * with a URL and where it found it; the CLI drops credentials and anything that is not http(s).
 */
export interface DetectContext {
  /** Runs a command: its stdout, or null when it is missing, fails or times out. */
  run(cmd: string, args: string[]): Promise<string | null>;
  /** A file below the user's home folder (`readHomeFile('.m2', 'settings.xml')`), or null when absent. */
  readHomeFile(...segments: string[]): Promise<string | null>;
  /**
   * A machine-wide settings file by absolute path (`/etc/containers/registries.conf`), or null when absent.
   * Optional: a context without it (an older CLI) reads no system files.
   */
  readSystemFile?(path: string): Promise<string | null>;
}

export interface DetectedUpstream {
  upstream: string;
  /** Where it was found, for the comment in hub.toml: a command or a file (`~/.m2/settings.xml`). */
  source: string;
}

export type DetectUpstream = (ctx: DetectContext) => Promise<DetectedUpstream | null>;
