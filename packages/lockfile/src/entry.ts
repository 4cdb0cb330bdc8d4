/** What every lockfile parser produces: one entry per locked package version, in the file's own ecosystem. */

/** The ecosystems lockfiles name; each maps to the kind (registry `type`) that serves it. */
export const ECOSYSTEMS = ['npm', 'cargo', 'go', 'rubygems', 'pypi', 'nuget'] as const;
export type Ecosystem = (typeof ECOSYSTEMS)[number];

export type DigestAlgorithm = 'sha1' | 'sha256' | 'sha512' | 'h1';

/** A digest the lockfile records for the entry's file, in lower-case hex. */
export interface LockDigest {
  algorithm: DigestAlgorithm;
  hex: string;
}

export interface LockEntry {
  ecosystem: Ecosystem;
  name: string;
  version: string;
  /** The digests the lockfile records (several for PyPI: one per file of the release); empty when it records none. */
  digests: LockDigest[];
  /** File names the lockfile names for the version (poetry.lock, uv.lock), for warming. */
  files?: string[];
}

export interface ParseLimits {
  /** Largest lockfile text read. */
  maxBytes: number;
  /** Most entries one lockfile may hold. */
  maxEntries: number;
}

export const DEFAULT_LIMITS: ParseLimits = { maxBytes: 8 * 1024 * 1024, maxEntries: 20_000 };

/** A lockfile hub refuses to read: too big, too many entries, not the format it claims, or hostile. */
export class LockfileError extends Error {
  override name = 'LockfileError';
}

/** Names and versions longer than this are refused (no registry has them; they only grow memory). */
const MAX_FIELD = 512;
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Collects entries within the limits, dropping duplicates, refusing names and versions no registry would hold. */
export class EntryList {
  private readonly seen = new Map<string, LockEntry>();
  constructor(private readonly limits: ParseLimits) {}

  add(e: LockEntry): void {
    if (
      !e.name ||
      !e.version ||
      e.name.length > MAX_FIELD ||
      e.version.length > MAX_FIELD ||
      CONTROL.test(e.name) ||
      CONTROL.test(e.version)
    )
      throw new LockfileError(
        `an entry's name or version is empty, longer than ${MAX_FIELD} characters or holds control characters (${JSON.stringify(e.name.slice(0, 64))})`,
      );
    const key = `${e.name}\u0000${e.version}`;
    const had = this.seen.get(key);
    if (had) {
      for (const d of e.digests)
        if (!had.digests.some((x) => x.algorithm === d.algorithm && x.hex === d.hex)) had.digests.push(d);
      return;
    }
    if (this.seen.size >= this.limits.maxEntries)
      throw new LockfileError(`the lockfile holds more than ${this.limits.maxEntries} entries (the limit)`);
    this.seen.set(key, e);
  }

  get entries(): LockEntry[] {
    return [...this.seen.values()];
  }
}

/** Text of at most maxBytes, as UTF-8 without replacement characters (a lockfile in another encoding is refused). */
export function checkedText(text: string, limits: ParseLimits): string {
  if (Buffer.byteLength(text, 'utf8') > limits.maxBytes)
    throw new LockfileError(`the lockfile is larger than ${limits.maxBytes} bytes (the limit)`);
  if (text.includes('\uFFFD')) throw new LockfileError('the lockfile is not valid UTF-8');
  if (text.includes('\u0000')) throw new LockfileError('the lockfile holds NUL bytes: it is not a text lockfile');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Lines of a line-based lockfile; a single line over 64 KiB is refused (no lockfile has one). */
export function linesOf(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines.some((l) => l.length > 65_536)) throw new LockfileError('the lockfile has a line longer than 64 KiB');
  return lines;
}
