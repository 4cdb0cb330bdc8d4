/** What a request is about, and how a kind writes it as text (the admin API, the CLI and flags). */

/** What a request is about. Canonical names follow docs/coordinates.md. */
export interface Coordinate {
  /** npm `@scope/name`, go the unescaped module path, maven `group:artifact`, path kinds `repo`. */
  name: string;
  /** A version; for path-addressed kinds the upstream path without a leading slash. */
  version?: string;
}

export interface CoordinateCodec {
  /** Parses the canonical text form used by the admin API, CLI and flags; null when malformed. */
  parse(text: string): Coordinate | null;
  /** The inverse of parse: parse(format(c)) round-trips. */
  format(c: Coordinate): string;
  /** Case folding and the like (nuget lower-cases ids). Identity when absent. */
  normalizeName?(name: string): string;
  /**
   * The one spelling every spelling of a version shares, where the registry's clients treat several as the
   * same version (PEP 440: `1.0`, `1.0.0`, `v1.0.0.0`; NuGet: `1.0`, `1.0.0.0`). The runtime compares
   * versions by it wherever it stores or compares one: blocks, unlisting, flags, tombstones and the publish
   * 409. Total (any text gives a string) and idempotent; identity when absent (decision 0039).
   */
  canonicalVersion?(version: string): string;
  /**
   * The registry's own version order (negative: `a` is older), for the admin API's package page (newest
   * first). Absent: `genericVersionOrder` (dot-separated numbers, then SemVer pre-release precedence).
   */
  compareVersions?(a: string, b: string): number;
  /** Whether a version is a pre-release (hidden by default on package pages). Absent: `isGenericPrerelease`. */
  isPrerelease?(version: string): boolean;
}
