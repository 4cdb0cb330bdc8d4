/**
 * The plugin contract for everything that is not a kind (admin API, audit, ...).
 * A plugin declares what it needs; the runtime checks it at registration and fails fast.
 */
import type Router from '@koa/router';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { HubConfig, RegistryConfig } from '../config/schema.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { HubMetrics } from '../metrics.js';
import type { Authenticator } from '../auth/authenticate.js';
import type { CONTRACT_VERSION, RegistryKind } from './kind.js';

/** A knex migration, namespaced by the plugin id when merged (`<plugin>/<name>`). */
export interface Migration {
  up(db: Knex): Promise<void>;
  down?(db: Knex): Promise<void>;
}

export interface PluginContext {
  config: HubConfig;
  db: Knex;
  blobs: BlobStore;
  kinds: ReadonlyMap<string, RegistryKind>;
  registries: readonly RegistryConfig[];
  log: Logger;
  metrics: HubMetrics;
  auth: Authenticator;
  /** Mounted at the root; plugins add their `/api/v1/...` routes here. */
  router: Router;
}

export interface HubPlugin {
  role: 'plugin';
  id: string;
  contract: typeof CONTRACT_VERSION;
  description: string;
  /** Ids of plugins that must be loaded too. */
  requires?: readonly string[];
  /** Ordered by name; run at start and by `hub migrate`. */
  migrations?: Readonly<Record<string, Migration>>;
  setup?(ctx: PluginContext): void | Promise<void>;
  stop?(): void | Promise<void>;
}

export function definePlugin(plugin: Omit<HubPlugin, 'role'>): HubPlugin {
  return { role: 'plugin', ...plugin };
}

export type AnyPlugin = HubPlugin | RegistryKind<any>;
