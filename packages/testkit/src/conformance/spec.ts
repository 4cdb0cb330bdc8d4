import type { AnyPlugin, Coordinate } from '@hub/runtime';
import type { FixtureUpstreamOptions } from '../fixture-upstream.js';

/** The checks kindConformance runs; a kind may skip one only by saying why (see `KindConformanceSpec.skip`). */
export const CONFORMANCE_CHECKS = [
  'round-trip',
  'canonical-version',
  'blocked',
  'unlisted',
  'upstream-500',
  'html-200',
  'head',
  'unknown-path',
  'probe-503',
  'hard-block-flag',
  'group',
] as const;
export type ConformanceCheck = (typeof CONFORMANCE_CHECKS)[number];

/** One document a client lists versions from (a packument, a version list, an index file, ...). */
export interface ConformanceListing {
  /** The path below `/proxy/<registry>/`, percent-encoded as a client sends it. */
  path: string;
  /** Headers that ask for this listing (npm's Accept picks the packument); added to `KindConformanceSpec.headers`. */
  headers?: Record<string, string>;
  /** Does this listing body offer `version`? */
  lists(body: Buffer, version: string): boolean;
}

/**
 * What kindConformance cannot know about a kind. Everything else (the hub, the admin and flag plugins,
 * tokens, faults) the suite sets up itself.
 */
export interface KindConformanceSpec {
  /** The kind under test; it is the only kind the hub loads. */
  kind: Extract<AnyPlugin, { role: 'kind' }>;
  /** Extra `[[registries]]` keys (the kind's own config); the suite sets `name`, `type`, `mode` and `upstream`. */
  registry?: Record<string, unknown>;
  /**
   * The fixture upstream: files below `root` and/or a `handler`. It must serve `pkg` with both versions,
   * enough to list and download them. Faults are injected on top of it by the suite.
   */
  upstream: FixtureUpstreamOptions;
  /** Appended to the fixture's URL to make the registry's `upstream` (cargo's index lives below `/index`, say). */
  upstreamPath?: string;
  /** Coordinates whose canonical text must round-trip: `parse(format(c))` equals `c`. */
  coordinates: readonly Coordinate[];
  /**
   * For a kind with `coordinate.canonicalVersion`: groups of spellings the registry's clients take for one
   * version (`['1.0', '1.0.0', 'v1.0.0.0']`), each of which must share one canonical spelling.
   */
  versionSpellings?: ReadonlyArray<readonly string[]>;
  /**
   * The package the fixture serves, in its canonical spelling (docs/coordinates.md): `versions[0]` is
   * blocked and flagged, `versions[1]` is unlisted. Path-addressed kinds: `name` is `repo`, the versions
   * are upstream file paths.
   */
  pkg: { name: string; versions: readonly [string, string] };
  /** Client-facing paths below `/proxy/<registry>/`, percent-encoded as a client sends them. */
  paths: {
    /** The download of one version of `pkg` (its artifact). */
    download(version: string): string;
    /** Every listing of `pkg` a client reads; empty when the protocol has none (then `skip.unlisted` says why). */
    listings: readonly ConformanceListing[];
    /** A path no route of the kind serves. */
    unknown: string;
  };
  /** Headers every client request carries (an Accept the protocol needs, say). */
  headers?: Record<string, string>;
  /** The name and versions to probe with the upstream answering 503; default `pkg`. */
  probe?: { name: string; versions: readonly string[] };
  /**
   * Group registries, for a kind with a `group` hook (decision 0051; the `group` check is skipped for a kind
   * without one). The check merges two members' answers of a listing and serves it through a group of two.
   */
  group?: {
    /** Which of `paths.listings` to merge (its route must be named in `group.merge`); default 0. */
    listing?: number;
    /**
     * Which of `members` gave the merged listing's entry for `version`, or null. Default: the first member whose
     * `/proxy/<member>/` URLs the body names, for listings whose entries carry URLs. When the first member's own
     * answer gives null (no URLs), the merge's first-member-wins is not checked, only the download's.
     */
    memberOf?(body: Buffer, version: string, members: readonly string[]): string | null;
  };
  /** Checks the protocol makes meaningless, with the reason; the suite reports them as skipped. */
  skip?: Partial<Record<ConformanceCheck, string>>;
}
