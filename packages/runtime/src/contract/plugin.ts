/**
 * The plugin contract for everything that is not a kind (admin API, audit, ...).
 * A plugin declares what it needs; the runtime checks it at registration and fails fast.
 */
import type Router from '@koa/router';
import type { Knex } from 'knex';
import type { Static, TSchema } from 'typebox';
import type { Logger } from 'pino';
import type { ConfigSection, HubConfig, RegistryConfig } from '../config/schema.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { HubMetrics } from '../metrics.js';
import type { AccessControl } from '../policy/access-control.js';
import type Koa from 'koa';
import type {
  CONTRACT_VERSION,
  Coordinate,
  HubAdvisory,
  HubError,
  MetadataDoc,
  MetadataSpec,
  RegistryInfo,
  RegistryKind,
  UpstreamClient,
} from '@hub/contract';
import type { EventBus } from '../events/event-bus.js';
import type { HealthBoard } from '../health/health-board.js';
import type { HubServices } from '../services/hub-services.js';
import type { PackageFactsBoard } from '../catalog/package-facts.js';
import type { AdminRouteCatalog } from '../plugins/admin-route-catalog.js';
import type { ClusterProvider } from './cluster.js';
import type { Migration } from './migration.js';
import type { BlobStoreProvider, KeptListingsProvider, LocalStoreProvider, RateStoreProvider } from './providers.js';
import type { Cleanup } from './cleanup.js';
import type { ConfigReload } from './config-reload.js';
import type { ListingRevalidation } from '../cache/listing-revalidation.js';

export type { Migration } from './migration.js';
export type {
  BlobStoreProvider,
  KeptListings,
  KeptListingsProvider,
  LocalStoreProvider,
  RateStoreProvider,
} from './providers.js';

/** What a plugin's `setup` is handed: the hub's config, database, services and the lists it may add to. */
export interface PluginContext<Cfg = unknown> {
  /** The configuration in force: after a hot reload, the new one (read it when needed rather than keeping parts of it). */
  config: HubConfig;
  /** This plugin's own `[section]` of hub.toml, validated and defaulted by its `config.schema` (undefined without one). */
  pluginConfig: Cfg;
  /** For the plugin's own tables only: runtime state changes through `services`. */
  db: Knex;
  blobs: BlobStore;
  /** The loaded kinds, by id. */
  kinds: ReadonlyMap<string, RegistryKind>;
  /** The configured registries in force (a hot reload replaces the list). */
  registries: readonly RegistryConfig[];
  /** Each served registry as its routes see it, with its own upstream client (auth, timeouts, redirect rules); always the registries in force. */
  served: ReadonlyMap<string, ServedRegistry>;
  /** Re-reads hub.toml on this replica, or on every replica (the admin API's `POST /api/v1/admin/config/reload`). */
  configReload: ConfigReload;
  log: Logger;
  metrics: HubMetrics;
  /** Authentication plus decide() with config and API policies: what every route checks access with. */
  access: AccessControl;
  /** Blocks, unlisting, users, tokens, artifact pins, what is held and the audit log's reader: each keeps its own memo current. */
  services: HubServices;
  /** Rules the client gate asks of every request's address before the rate limit (@hub/ip-blocks adds one). */
  clientRules: ClientRule[];
  /** Ways to sign in to the console besides a token (@hub/auth-oidc adds OpenID Connect); the console mounts them. */
  signIns: SignInMethod[];
  /** Notifications: stored, listed by the admin API; `subscribe` sees each one stored (the webhooks plugin delivers them). */
  events: EventBus;
  /** Sections plugins add to the admin health card. */
  health: HealthBoard;
  /** What plugins know about held packages (upstream state, flags, dependencies), for the admin API's package pages. */
  packageFacts: PackageFactsBoard;
  /** The admin routes mounted so far (mountAdminRoutes adds to it): the source of `/api/v1/openapi.json`. */
  adminRoutes: AdminRouteCatalog;
  /** Refusal rules the runtime applies with blocks, before any kind's handler and again for each artifact. */
  refusals: RefusalRule[];
  /** Waivers that may lift one block or refusal for one request's subject (@hub/waivers adds one; decision 0067). */
  waivers: RefusalWaiver[];
  /** Where kinds' audit routes read hub's own advisories (`rc.advisories`); the flags plugin adds one. */
  advisories: AdvisorySource[];
  /** Revalidation of one package's listing now (the admin API's `cache/revalidate`), and its listeners (decision 0058). */
  listings: ListingRevalidation;
  /** A registry's cached upstream document, as `rc.metadata` reads it: for plugins off the request path (provenance). */
  metadata(registry: string, spec: MetadataSpec): Promise<MetadataDoc>;
  /** The artifact cache's removals (the admin API's purge), and a wait for fetches under way to be stored. */
  artifacts: CachePurge;
  /** Listeners told of each artifact fetched from an upstream and stored (its first miss): @hub/provenance verifies then. */
  fetched: FetchedArtifactListener[];
  /** `[[registries.cleanup]]` rules: what a run would remove, and a run now (the admin API's cleanup routes). */
  cleanup: Cleanup;
  /** Parses a JSON body within `[limits] max_json_body_bytes` (415 / 413 / 400 otherwise). */
  jsonBody: Koa.Middleware;
  /** Mounted at the root; plugins add their `/api/v1/...` routes here. */
  router: Router;
}

/**
 * A rule that can refuse a coordinate on a registry (403 `package_blocked`): answers with the message
 * naming who or what refuses it, or null. Called on the hot path: keep it memoised, and answer without a
 * promise when memory knows (a hit then awaits nothing for it). A refusal that a waiver may lift names its
 * `target` (`flag:<source>:<external_id>`); a plain string can be lifted by none.
 */
export type RefusalRule = (registry: string, c: Coordinate) => RefusalAnswer | Promise<RefusalAnswer>;

/** A refusal rule's answer: a refusal no waiver lifts (its message), one a waiver may lift, or null (not refused). */
export type RefusalAnswer = string | Refusal | null;

/** A refusal a waiver may lift: its message, and what refuses (`block:<id>`, `flag:<source>:<external_id>`). */
export interface Refusal {
  message: string;
  target: string;
}

/** Who a registry request is: the user and the token it came with (both null for anonymous). */
export interface Who {
  user: string | null;
  tokenId: string | null;
}

/**
 * The active waiver that lets this request through the refusal `target` (decision 0067), named for the
 * request's audit row (`waiver 7`), or null. Called on the hot path after a refusal was found: keep it
 * memoised. Answer null when it cannot read: the refusal then stands.
 */
export type RefusalWaiver = (target: string, registry: string, c: Coordinate, who: Who) => Promise<string | null>;

/**
 * hub's own advisories on some names of a registry (`rc.advisories`). `origin` is the hub's public origin as
 * the request sees it (`[server] public_url`, else the request's host), for links a provider makes. Names
 * come from a client's audit request (bounded by its body cap): query them in chunks.
 */
export type AdvisorySource = (
  registry: string,
  names: readonly string[],
  origin: string,
) => Promise<readonly HubAdvisory[]>;

/**
 * Told of an artifact just fetched from an upstream and stored, after its row is written. It must not throw
 * or block: start any work in the background (the request that fetched it is still being answered).
 */
export type FetchedArtifactListener = (a: {
  registry: string;
  packageName: string;
  version: string | null;
  key: string;
  sha256: string;
}) => void;

/**
 * A rule that can refuse a client address before any route (except /healthz) and before the rate limit:
 * the error to answer with, or null. Asked on every request: keep it memoised and answer refusalNow
 * without a promise while the memo is fresh.
 */
export interface ClientRule {
  /** The answer at once when it is known; undefined when it must be read (the gate then awaits refusal()). */
  refusalNow(ip: string): HubError | null | undefined;
  refusal(ip: string): Promise<HubError | null>;
}

/**
 * A way to sign in to the console through another party (an OpenID Provider). The console owns the routes and
 * the session: `GET /console/sign-in/<id>` calls start(), `GET /console/sign-in/<id>/callback` calls finish()
 * and opens a session for the token it answers, or shows the refusal it throws (a HubError) as a page.
 */
export interface SignInMethod {
  /** The path segment, e.g. `oidc`. */
  id: string;
  /** What the console's button says after "Sign in with ". */
  label: string;
  /** Answers the browser, usually with a redirect to the provider; `callbackUrl` is where the provider must send it back. */
  start(ctx: Koa.Context, callbackUrl: string): Promise<void>;
  /** Checks the provider's answer; resolves with a hub token (and its expiry, epoch ms) the console session stands for. */
  finish(ctx: Koa.Context, callbackUrl: string): Promise<{ token: string; user_id: string; expires_at: number }>;
}

export interface ServedRegistry {
  info: RegistryInfo;
  kind: RegistryKind;
  upstream: UpstreamClient;
  /** Publishing limits ([[registries]] max_publish_bytes, quota_bytes). */
  publishing: { maxPublishBytes: number; quotaBytes: number; deployExpirySecs: number };
  /** A group registry's members and routing (`mode = "group"`, decision 0051); absent for every other registry. */
  group?: ServedGroup;
}

/** What a group registry serves from: its members, in order, and which of them may serve a name. */
export interface ServedGroup {
  members: readonly ServedRegistry[];
  /** Whether the member's `include`/`exclude` rules admit the (canonical) name. */
  admits(member: string, name: string): boolean;
  /** Whether `allow_upstream_names` lets every member serve a name a local or hybrid member published. */
  allowsUpstream(name: string): boolean;
}

/** Removes cached artifacts of a package (one version, or all); resolves with how many were removed. */
export interface CachePurge {
  purge(registry: string, packageName: string, version?: string): Promise<number>;
  /** Resolves once every fetch under way is stored (its row written) or discarded: a file served is held after it. */
  idle(): Promise<void>;
}

/** A feature plugin (not a kind): `id` names it in `requires` and its migrations; `contract` is the CONTRACT_VERSION it targets. */
export interface HubPlugin<Cfg = unknown, D extends PluginService = PluginService> {
  role: 'plugin';
  id: string;
  contract: typeof CONTRACT_VERSION;
  description: string;
  /** Ids of plugins that must be loaded too. */
  requires?: readonly string[];
  /**
   * The members of `PluginContext` setup uses (`['db', 'log', 'router']`): setup gets those and no others,
   * typed so, and reading an undeclared one throws naming the plugin and the service; a name that is not a
   * service is refused at start-up. Without `deps` a plugin gets the whole context: deprecated, kept for
   * plugins written before deps (decision 0069; docs/writing-a-plugin.md).
   */
  deps?: readonly D[];
  /**
   * The plugin's own hub.toml section (`[upstream_audit]`, or `[[flag_sources]]` for an array schema):
   * merged into the strict schema, validated by the loader like a kind's keys, and rendered into docs/config.md.
   */
  config?: ConfigSection;
  /**
   * Further top-level sections the plugin owns (the flags plugin's `[[advisory_feeds]]` beside its
   * `[[flag_sources]]`): validated and documented like `config`, read in setup from `ctx.config.sections`.
   */
  extraSections?: readonly ConfigSection[];
  /** Ordered by name; run at start and by `hub migrate`. */
  migrations?: Readonly<Record<string, Migration>>;
  /**
   * Called once per hub. What it returns is that hub's instance of the plugin: its stop() runs when the
   * hub closes (timers, sweeps). State lives there, never in the module: one process may run many hubs.
   */
  setup?(ctx: Pick<PluginContext<Cfg>, D>): void | PluginInstance | Promise<void | PluginInstance>;
  /** A blob store this plugin provides, chosen by `[storage] kind` (`fs` is built in). */
  blobStore?: BlobStoreProvider;
  /** The publishing store (`rc.local`, `services.local`); at most one plugin provides it (`@hub/publishing`). */
  localStore?: LocalStoreProvider;
  /** Per-IP rate counters this plugin provides, chosen by `[limits] rate_store` (`memory` is built in). */
  rateStore?: RateStoreProvider;
  /** Replicas sharing a database: shared fetches, heartbeats (at most one plugin provides it). */
  cluster?: ClusterProvider;
  /** The packages whose last good listing is served after the upstream removed them (at most one plugin: `@hub/audit`). */
  keptListings?: KeptListingsProvider;
}

export interface PluginInstance {
  stop(): void | Promise<void>;
  /**
   * A hot reload validated a new config: apply it (the plugin's own section, and whatever it read from the rest).
   * Without it, a change to the plugin's section is refused as needing a restart. Called before the new
   * registries are swapped in; a throw refuses the whole reload (plugins already called get the old config back).
   */
  reload?(next: { config: HubConfig; pluginConfig: unknown }): void;
}

/** A member of `PluginContext` a plugin may declare in `deps`. */
export type PluginService = keyof PluginContext;

/** `ctx.pluginConfig` is typed by the plugin's `config.schema`, and `ctx` has the members `deps` names. */
export function definePlugin<S extends TSchema = TSchema, D extends PluginService = PluginService>(
  plugin: Omit<HubPlugin<Static<S>, D>, 'role' | 'config'> & { config?: ConfigSection<S> },
): HubPlugin<Static<S>, D> {
  return { role: 'plugin', ...plugin };
}

/** Every hub.toml section a plugin owns: its `config`, then its `extraSections`. */
export const pluginSections = (p: Pick<HubPlugin, 'config' | 'extraSections'>): ConfigSection[] => [
  ...(p.config ? [p.config] : []),
  ...(p.extraSections ?? []),
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a list of plugins each with its own config type: no single type argument fits them all
export type AnyPlugin = HubPlugin<any> | RegistryKind<any>;
