/**
 * The RegistryKind contract: what a kind plugin gives the runtime.
 *
 * Kinds describe, the runtime enforces. A kind never checks tokens, blocks, unlisting, rate limits or
 * metrics: each route hands the runtime a coordinate, and the runtime decides before (and, for
 * artifacts, again inside `rc.artifact`) the handler's work is served.
 *
 * @example
 * export default defineKind({
 *   id: 'acme', contract: 1, addressing: 'package', description: 'Acme packages',
 *   coordinate: { parse: (t) => ({ name: t }), format: (c) => c.name },
 *   routes: [{
 *     id: 'file',
 *     match: (s) => (s.length === 2 ? { coordinate: { name: s[0]!, version: s[1]! } } : null),
 *     handle: (rc, m) => rc.artifact({
 *       key: `${m.coordinate!.name}/${m.coordinate!.version}`, coordinate: m.coordinate!,
 *       contentType: 'application/octet-stream',
 *       source: async () => ({ url: `${rc.registry.upstream}/${m.coordinate!.name}/${m.coordinate!.version}` }),
 *     }),
 *   }],
 * });
 */
import type { Readable } from 'node:stream';
import type { TSchema } from 'typebox';
import type { Logger } from 'pino';
import type { ClientCheck } from './client-check.js';
import type { UpstreamClient } from './upstream.js';
import type { DetectUpstream } from './detect-upstream.js';
import type { GarbageCollector } from './garbage.js';
import type { LocalRegistry, PublishAction } from './local.js';
import type { VersionRangeHook } from './version-range.js';
import type { Permission } from './access.js';
import type { Coordinate, CoordinateCodec } from './coordinate.js';
import type { Digest } from './digest.js';
import type { Mode, RegistryInfo } from './registry-info.js';

export type { Coordinate, CoordinateCodec } from './coordinate.js';
export type { Digest } from './digest.js';
export type { Mode, RegistryInfo } from './registry-info.js';

/** The major version of this contract; the runtime refuses plugins built for another. */
export const CONTRACT_VERSION = 1;

export type Addressing = 'package' | 'path' | 'forge';
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteMatch {
  /** The runtime checks blocks against this before the handler runs. */
  coordinate?: Coordinate;
  params?: Record<string, string>;
}

export interface KindRoute<Cfg = unknown> {
  /** A short stable name for logs and metrics, e.g. `tarball`. */
  id: string;
  /** Default: GET and HEAD (the runtime answers HEAD from the GET reply without a body). */
  methods?: readonly HttpMethod[];
  /**
   * Matches the path below `/proxy/<name>/`, split on `/` and percent-decoded per segment.
   * The runtime has already refused empty, `.`, `..`, NUL and backslash segments.
   */
  match(segments: readonly string[]): RouteMatch | null;
  /** Default `source:read`; null for documents a client fetches before it authenticates. */
  permission?: Permission | null;
  /**
   * A URL made by `rc.signedUrl` for this path also grants the route, without a token: for clients
   * that send no credentials to download URLs (terraform). Blocks still apply.
   */
  signedAccess?: boolean;
  handle(rc: RequestContext<Cfg>, match: RouteMatch): Promise<Reply>;
}

/** Where an uncached artifact comes from, resolved only on a miss. */
export interface ArtifactSource {
  url: string;
  /** The upstream's own digest; a mismatch means nothing is cached and the client gets 502. */
  digest?: Digest;
  size?: number;
  headers?: Record<string, string>;
  /**
   * `gzip`: the upstream may gzip the artifact (Content-Encoding, or just the body, as the VS Code
   * marketplace does); hub gunzips it, and checks, caches and serves the decoded bytes. `digest` and
   * `size` then describe the decoded bytes.
   */
  decode?: 'gzip';
  /** When the upstream published this version, where the kind knows it (for the cool-down). */
  publishedAt?: Date;
}

export interface ArtifactSpec {
  /** Unique within the registry, stable across replicas, e.g. `lodash/-/lodash-4.17.21.tgz`. */
  key: string;
  coordinate: Coordinate;
  contentType: string;
  /**
   * Media types the upstream may answer with that are kept (stored and served) instead of `contentType`: an
   * OCI manifest fetched by digest is served with its own media type, which only the upstream's answer tells.
   */
  upstreamContentTypes?: readonly string[];
  source(): Promise<ArtifactSource>;
  /**
   * The container format. The runtime then refuses a head that is not this format (an HTML error
   * page, say) and verifies the whole structure (gzip CRCs, zip end record, tar headers) before caching.
   */
  format?: 'gzip' | 'zip' | 'tar';
  /** Checks the first bytes (up to 512); returns why they are not this artifact, or null. */
  checkHead?(head: Buffer): string | null;
}

export interface MetadataSpec {
  /** Unique within the registry; include the representation when the upstream varies by Accept. */
  key: string;
  url: string;
  headers?: Record<string, string>;
  /** Returns why the body is not a valid document (an HTML error page, say), or null. */
  check?(body: Buffer, contentType: string | undefined): string | null;
  /** Overrides the registry's metadata_ttl_secs. Immutable documents use a long TTL. */
  ttlSecs?: number;
  maxBytes?: number;
  /**
   * The package this document lists. When the upstream answers 404 for it while the upstream audit
   * holds the package as missing or disappeared, hub serves the last good copy (`kept`) instead.
   */
  packageName?: string;
  /**
   * Keys of other documents of this registry that answer this request just as well (npm's full packument for
   * a tarball's dist fields): a fresh copy of one already in memory, or being fetched, is used instead of a
   * second upstream request. Only for reads of fields every alternate has; never for serving the document.
   */
  alternates?: readonly string[];
}

export interface MetadataDoc {
  body: Buffer;
  contentType?: string;
  /** Strong validator of the stored bytes (their SHA-256). */
  etag: string;
  /** True when the upstream failed and this is the last good copy. */
  stale: boolean;
  fetchedAt: Date;
  /**
   * Set when the upstream no longer has the package and this is the last good copy, kept because hub
   * holds some of its versions: the versions hub holds. A kind may drop the others from its listing.
   */
  kept?: { heldVersions: ReadonlySet<string> };
  /** Memoises a derived value (a parsed or rewritten document) for these exact bytes. */
  derive<T>(tag: string, fn: (body: Buffer) => T): T;
}

/**
 * What a route answers. The runtime answers conditional GETs from its `etag` and `last-modified`
 * (a 2xx the client already holds becomes a 304), so send `last-modified` only when it is the
 * document's own modification time.
 */
export interface Reply {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string | Readable | null;
}

/** One link of `RequestContext.linkVersions`: the version it leads to, and how a block on the parent applies to it. */
export interface VersionLink {
  version: string;
  relation: 'names' | 'part';
}

/**
 * One of hub's own advisories: a flag a security team pushed (the flags plugin), as an audit answer reads it.
 * The kind turns it into its clients' format (npm's bulk advisories); the effect says how hub treats it.
 */
export interface HubAdvisory {
  /** Stable across requests: `hub:<flag source>:<external id>`. */
  id: string;
  /** The package name, as the flag names it. */
  name: string;
  /** One version (`version_range` null), by the flag. */
  version: string | null;
  /** The range in the kind's own syntax; `*` for every version. */
  versionRange: string | null;
  /** `info`, `warn`, `gate` or `hard_block` (the flags plugin's effects, weakest first). */
  effect: string;
  /** What the flag is: `malware`, `vulnerability`, ... */
  kind: string;
  /** The flag's summary (what a developer reads), else a sentence naming the flag. */
  title: string;
  /** The console's incident page for this flag. */
  url: string;
}

export interface RequestContext<Cfg = unknown> {
  registry: RegistryInfo<Cfg>;
  /** `<public url>/proxy/<name>` without a trailing slash: the prefix for rewritten URLs. */
  baseUrl: string;
  method: HttpMethod;
  /** True when a request without credentials may read this registry (cargo's `auth-required` says the opposite). */
  anonymousRead: boolean;
  /** Request headers, lower-cased names. */
  headers: Readonly<Record<string, string | undefined>>;
  query: URLSearchParams;
  log: Logger;
  upstream: UpstreamClient;
  /**
   * Serves an immutable artifact from the cache (answering the request's Range), or fetches it once for
   * every concurrent waiter.
   */
  artifact(spec: ArtifactSpec): Promise<Reply>;
  /** A mutable document with TTL, revalidation, stale-on-error and a short negative cache. */
  metadata(spec: MetadataSpec): Promise<MetadataDoc>;
  /** Streams an upstream answer unchanged and uncached (e.g. go's checksum database). */
  passthrough(url: string, headers?: Record<string, string>): Promise<Reply>;
  /**
   * `${baseUrl}/${subpath}` with a short-lived signature (default 10 minutes) that routes with
   * `signedAccess` accept instead of a token. `subpath` is already percent-encoded.
   */
  signedUrl(subpath: string, ttlSecs?: number): string;
  /**
   * Versions of `name` that are unlisted: drop them from every listing the kind serves. The set holds
   * canonical spellings: look a version up as `coordinate.canonicalVersion(v)` when the kind has one.
   */
  hiddenVersions(name: string): Promise<ReadonlySet<string>>;
  /**
   * Versions of `name` a block refuses, by canonical spelling, each with the refusal's message (what the
   * 403 says). For listings whose format can say so without hiding the version (PEP 592's yanked), so
   * resolvers pass over it while an exact request still meets the 403. Empty when the whole name is blocked
   * (the listing itself is refused then).
   */
  blockedVersions(name: string): Promise<ReadonlyMap<string, string>>;
  /**
   * Packages of this registry whose last good listing hub keeps because the upstream removed them (the
   * upstream audit says so). A kind whose registry-wide index would drop them (rubygems `/versions`) adds them back.
   */
  keptPackages(): Promise<readonly string[]>;
  /**
   * hub's own advisories (active flags) on these package names of this registry, for the audit routes
   * clients ask (npm audit). Empty when no plugin provides them; a failing provider fails the call.
   */
  advisories(names: readonly string[]): Promise<readonly HubAdvisory[]>;
  /** The authenticated user, or null for an anonymous request. */
  user: string | null;
  /**
   * The request body, for write routes. Reading past the registry's `max_publish_bytes` fails with 413; a
   * Content-Length above it is refused before a byte is read.
   */
  body(): Readable;
  /**
   * Publishing, in `local` and `hybrid` registries. Routes whose permission is `source:write` never run
   * in a `proxy` registry (405 `method_not_allowed`), so they need not check the mode.
   */
  local: LocalRegistry;
  /**
   * The route's permission and the blocks for a coordinate the handler read from the request body (a pushed
   * .gem's name): 403 when a package-scoped policy denies it or the package is blocked.
   */
  authorize(coordinate: Coordinate): Promise<void>;
  /**
   * Tells the runtime what version `from` of package `name` leads to, as the upstream's document says, so that
   * a block follows it (decision 0045): a block on `from` also refuses each `names` target (an OCI tag's
   * manifest, an index's platform images), under every reference that leads to it; a `part` (a layer) is
   * refused once every version hub has seen lead to it is refused. Recorded once per process; cheap to repeat.
   */
  linkVersions(name: string, from: string, to: readonly VersionLink[]): Promise<void>;
  /** Names what this write did for its audit row (with the request's user); publishes also emit `package_published`. */
  recordAction(action: PublishAction, coordinate: Coordinate, detail?: string): void;
}

/**
 * `not_audited`: the file is left out of the audit by design (an index that changes on every repository
 * update): no row, and it does not count toward a sweep's outage ratio.
 */
export type ProbeAnswer = 'present' | 'absent' | 'inconclusive' | 'not_audited';

export interface ProbeResult {
  version: string;
  answer: ProbeAnswer;
  /** Which rung decided: `listing` or `version`. */
  rung: string;
  detail?: string;
}

export interface ProbeContext<Cfg = unknown> {
  registry: RegistryInfo<Cfg>;
  upstream: UpstreamClient;
  log: Logger;
  /**
   * The registry's cached documents (as `rc.metadata`), where the caller has the cache: a document a request just
   * fetched is read from it, at no upstream request (provenance reads npm's packument so). Absent: ask the upstream.
   */
  metadata?(spec: MetadataSpec): Promise<MetadataDoc>;
}

/**
 * The probe ladder asks the upstream whether held versions still exist: the listing document first,
 * a per-version probe otherwise. A 5xx, a timeout or anything unclear is `inconclusive`, never `absent`.
 */
export type ProbeLadder<Cfg = unknown> = (
  pc: ProbeContext<Cfg>,
  name: string,
  versions: readonly string[],
) => Promise<ProbeResult[]>;

/**
 * Whether the upstream has a package of this name at all, any version: the listing document the probe ladder
 * reads first (npm's packument, PyPI's project page, cargo's index file). 404/410 absent; a 5xx, a timeout or
 * a transport failure inconclusive. The runtime asks it before the first publish of a name to a hybrid
 * registry (decision 0043): a name the upstream has is refused unless an administrator claimed it.
 */
export type NameProbe<Cfg = unknown> = (
  pc: ProbeContext<Cfg>,
  name: string,
) => Promise<Exclude<ProbeAnswer, 'not_audited'>>;

/** The digest the upstream now declares for one held version's file (npm `integrity`, cargo `cksum`, ...). */
export interface DeclaredDigest {
  version: string;
  /** `h1`: go's module hash, over the files a module zip (or a go.mod) holds, not over its bytes. */
  algorithm: 'sha1' | 'sha256' | 'sha512' | 'h1';
  hex: string;
  /**
   * The same digest of the held bytes, in hex, for an algorithm that is not a plain hash of them (`h1`
   * needs it); null when they cannot be read. Plain hashes are computed by the audit.
   */
  heldDigest?: (body: Readable) => Promise<string | null>;
  /**
   * Which held file of the version it is about: that file's cache key (the `key` the kind gave
   * `rc.artifact`, e.g. maven's `org/x/a/1.0/a-1.0.jar`). Needed when a version holds several files
   * (maven's POM and jar, nuget's .nupkg and .nuspec); without it the version must hold exactly one.
   */
  key?: string;
}

/** The cache keys a package holds, per version: what `DeclaredDigests` may name in `key`. */
export type HeldKeys = ReadonlyMap<string, readonly string[]>;

/**
 * Content drift: the digests the upstream declares now for held versions, read from its listing. A version
 * it does not declare (or could not be read) is left out: only a declared digest that differs from the
 * held bytes is a change. Never throws for an upstream failure.
 */
export type DeclaredDigests<Cfg = unknown> = (
  pc: ProbeContext<Cfg>,
  name: string,
  versions: readonly string[],
  held: HeldKeys,
) => Promise<DeclaredDigest[]>;

/**
 * What the upstream attests for one version (decision 0062): Sigstore bundles as the upstream serves them
 * (hostile JSON, checked by whoever verifies them) and the digest of the version's artifact that their
 * in-toto subject must name. `null`: the upstream attests nothing for this version.
 */
export interface VersionAttestations {
  /** Each bundle with the predicate type the upstream says it carries (SLSA provenance, a publish attestation...). */
  bundles: Array<{ predicateType: string; bundle: unknown }>;
  /** The artifact's digest as the upstream declares it (npm: `dist.integrity`, sha512), hex. */
  subjectDigest: { algorithm: 'sha256' | 'sha512'; hex: string };
}

/**
 * Provenance: what the upstream attests for a version. Asked when hub first fetches the version, off the warm
 * path. Throws a HubError when the upstream could not be asked (a 5xx, a timeout); answers null when it
 * attests nothing. Read within the kind's own byte caps, at URLs built from the registry's upstream, never
 * from a URL an upstream document names.
 */
export type ProvenanceHook<Cfg = unknown> = (
  pc: ProbeContext<Cfg>,
  name: string,
  version: string,
) => Promise<VersionAttestations | null>;

/** What a kind's `listings` hook may use: the registry, its upstream, and cached documents (a service index). */
export interface ListingContext<Cfg = unknown> {
  registry: RegistryInfo<Cfg>;
  upstream: UpstreamClient;
  log: Logger;
  /** A cached document, as `rc.metadata` (for documents that say where the listing is, like NuGet's service index). */
  metadata(spec: MetadataSpec): Promise<MetadataDoc>;
}

/**
 * The upstream documents that list one package's versions, for revalidation (`hub cache revalidate`,
 * decision 0058): the runtime refetches each now, past its TTL, and replaces the cached copy only when the
 * new one passes `check` and `versions` reads it.
 */
export interface ListingSupport<Cfg = unknown> {
  /**
   * The specs the kind's listing routes ask `rc.metadata` for, for package `name` (canonical): the same
   * keys, so revalidating replaces what those routes serve. Throws HubError for a name the kind refuses.
   */
  specs(lc: ListingContext<Cfg>, name: string): Promise<readonly MetadataSpec[]>;
  /**
   * The versions a document of `specs` names, as the upstream spells them (`contentType` as the upstream sent
   * it); throws when it cannot read it.
   */
  versions(body: Buffer, spec: MetadataSpec, contentType: string | undefined): readonly string[];
}

export interface SbomDependency {
  name: string;
  range: string;
  scope: 'runtime' | 'dev' | 'optional' | 'peer' | 'build';
}

export interface SbomLimits {
  maxBytes: number;
  maxEntries: number;
}

/** Reads the dependencies an artifact's own manifest names, from its stream, within the limits. */
export interface SbomExtractor {
  appliesTo(key: string): boolean;
  extract(body: Readable, limits: SbomLimits): Promise<SbomDependency[]>;
}

/** One member's 200 answer to a listing route of a group registry, its body read into memory (within the metadata byte cap). */
export interface GroupPart {
  /** The member registry's name. */
  member: string;
  /** The member's mode: a `local` or `hybrid` member's listing holds the company's own packages. */
  mode: Exclude<Mode, 'group'>;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Merges one listing route's answers from a group's members into the document the group serves
 * (decision 0051). `parts` are in member order, only members that answered 200 (at least two: with one,
 * its answer is served as it is). The rule every kind follows: a version comes from the first member
 * that lists it. The members rendered their documents with the group's `rc.baseUrl`, so URLs already
 * point at the group; a merged document that carries digests of itself (rubygems' `/versions`) recomputes them.
 */
export type GroupMerge<Cfg = unknown> = (
  rc: RequestContext<Cfg>,
  parts: readonly GroupPart[],
  match: RouteMatch,
  ask?: GroupAsk,
) => Reply | Promise<Reply>;

/**
 * A merge's way to the members' answers to another request of the same kind (decision 0053): maven's
 * `maven-metadata.xml.sha1` hashes the merged XML, rubygems' `/versions` the merged `/info/<gem>` files, an
 * OCI tag list pages through the members' whole lists. `segments` as a route's `match` sees them (below
 * `/proxy/<group>/`), `query` in place of the request's (none when absent). The same members in the same
 * order under the same name rules as the request; only 200 answers, their bodies within the metadata byte
 * cap; Range and conditional headers are not passed on. The runtime may bound how many asks one merge makes.
 */
export type GroupAsk = (segments: readonly string[], query?: URLSearchParams) => Promise<readonly GroupPart[]>;

/**
 * How a kind takes part in group registries (`mode = "group"`). Routes named in `merge` are listings:
 * the runtime asks every member allowed to serve the name and merges their answers. Every other route
 * goes to the members in order, and the first answer that is not a 404 (or 410) is served, so an
 * artifact comes from the first member that lists its version, cached under that member only (a 5xx moves on
 * to the next member too, and is served only when no member answers). A kind
 * without `group` cannot be the type of a group registry (hub refuses to start, naming the kind).
 */
export interface GroupSupport<Cfg = unknown> {
  merge: Readonly<Record<string, GroupMerge<Cfg>>>;
  /**
   * Whether this request of a route named in `merge` asks for its listing. A route that answers a listing
   * or a file by the request's headers (npm's `/<package>`: the packument, or the latest tarball to a plain
   * download) says false for the file, which then goes to the members in order like any other route.
   * Absent: every request of a `merge` route is a listing.
   */
  lists?(
    route: string,
    request: { headers: Readonly<Record<string, string | undefined>>; query: URLSearchParams },
  ): boolean;
}

export interface RegistryKind<Cfg = unknown> {
  role: 'kind';
  /** Equals `[[registries]].type`. */
  id: string;
  contract: typeof CONTRACT_VERSION;
  addressing: Addressing;
  description: string;
  /** Extra [[registries]] keys for this type (additionalProperties: false). */
  configSchema?: TSchema;
  coordinate: CoordinateCodec;
  routes: readonly KindRoute<Cfg>[];
  probe?: ProbeLadder<Cfg>;
  /**
   * Whether the upstream has a name (decision 0043). A kind that takes publishes to hybrid registries gives
   * one; without it the runtime asks the probe ladder for the version being published, which sees a name only
   * when the upstream has that very version.
   */
  nameProbe?: NameProbe<Cfg>;
  /** Content drift: the digests the upstream declares for held versions (one artifact per version). */
  declaredDigests?: DeclaredDigests<Cfg>;
  /** Provenance: the Sigstore bundles the upstream attests for a version, and the digest they must cover (decision 0062). */
  provenance?: ProvenanceHook<Cfg>;
  sbom?: SbomExtractor;
  /**
   * Parses a flag's `version_range` in this ecosystem's own syntax into a matcher over this kind's
   * version order (the text is at most MAX_VERSION_RANGE_CHARS; `*` never reaches it). Kinds without
   * one take exact versions and `*` only.
   */
  versionRange?: VersionRangeHook;
  /**
   * The kind knows when versions were published: it gives `ArtifactSource.publishedAt` and honours
   * `registry.minReleaseAgeSecs` in its listings. A registry with a cool-down needs such a kind.
   */
  publishTimes?: boolean;
  /**
   * Extra headers on this kind's error answers, so its client shows why (npm prints `npm-notice`). The
   * body stays in hub's error format (docs/errors.md).
   */
  errorHeaders?(e: { status: number; code: string; message: string }): Record<string, string>;
  /**
   * Extra members of this kind's error bodies, beside the `error` member of docs/errors.md (which they cannot
   * replace): the OCI distribution API's `errors` array, which container clients print. `route` is the
   * matched route's id, when one matched; `kindCode` the code the handler named (a HubError's
   * `detail.kindCode`, e.g. `MANIFEST_BLOB_UNKNOWN`).
   */
  errorBody?(e: {
    status: number;
    code: string;
    message: string;
    route?: string;
    kindCode?: string;
  }): Record<string, unknown>;
  /**
   * True when the request comes from a client that prints an error body's `error` only as a string (npm
   * prints an object as `[object Object]`). Its error bodies are then `{error: <message>, code, message,
   * request_id}`: the members of docs/errors.md one level up, and `error` the text the client prints.
   */
  textErrors?(headers: Readonly<Record<string, string | undefined>>): boolean;
  /**
   * Clients that address a registry at the host root instead of below a URL (container clients ask for
   * `/v2/...`): the kind's routes are also served at `/<rootMount>/<registry name>/...`, with the same
   * segments as below `/proxy/<registry name>/`. `/<rootMount>/` itself goes to the route matching no
   * segments, in the first registry of this kind the request may read (decision 0025).
   */
  rootMount?: string;
  /** Local and hybrid registries: removes published files the kind's documents no longer refer to (decision 0055). */
  garbage?: GarbageCollector<Cfg>;
  /** The package's listing documents, for revalidation (decision 0058). Without it a package cannot be revalidated. */
  listings?: ListingSupport<Cfg>;
  /** Group registries: the kind's listing merges. Without it, the kind cannot be a group's type. */
  group?: GroupSupport<Cfg>;
  /** `hub init`: the upstream this machine's client is configured with, if the kind can tell. */
  detectUpstream?: DetectUpstream;
  /** What `hub check --<id> NAME` does (packages/cli/README.md); kinds without one are not offered by `hub check`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each kind's check names its own coordinate type; the CLI only forwards it
  clientCheck?: ClientCheck<any>;
}

export function defineKind<Cfg = unknown>(kind: Omit<RegistryKind<Cfg>, 'role'>): RegistryKind<Cfg> {
  return { role: 'kind', ...kind };
}
