/**
 * The hub.toml schema (docs/config.md). The schema is the configuration: defaults,
 * documentation (docs/config.md is rendered from the descriptions here) and validation all come
 * from these TypeBox values, so a key cannot exist in one place and be missing from another.
 *
 * Every object is `additionalProperties: false` (unknown keys are errors, never ignored) and every
 * key carries a `description`. Cross-field rules that JSON Schema says badly (upstream required
 * for proxy mode, tls_cert with tls_key, ...) live in load.ts.
 */
import Type, { type Static, type TSchema } from 'typebox';
import { strict } from './schema-helpers.js';
import { AuditExportSchema, AuditLogSchema } from './sections/audit-log.js';
import { AuthSchema, PolicySchema } from './sections/auth.js';
import { CacheSchema } from './sections/cache.js';
import { CleanupRuleSchema } from './sections/cleanup-rules.js';
import { LimitsSchema } from './sections/limits.js';
import { MetricsSchema } from './sections/metrics.js';
import { PluginsSchema } from './sections/plugins.js';
import { RegistrySchema, SecuritySchema, UpstreamAuthSchema } from './sections/registry.js';
import { ServerSchema } from './sections/server.js';
import { DatabaseSchema, StorageSchema } from './sections/storage.js';

export {
  PERMISSIONS,
  MODES,
  AUDIT_POLICIES,
  REGISTRY_NAME_PATTERN,
  NAME_MESSAGE,
  secretPair,
  httpUrl,
} from './schema-helpers.js';
export {
  ServerSchema,
  DatabaseSchema,
  StorageSchema,
  PolicySchema,
  AuthSchema,
  LimitsSchema,
  AuditExportSchema,
  AuditLogSchema,
  CacheSchema,
  MetricsSchema,
  PluginsSchema,
  UpstreamAuthSchema,
  SecuritySchema,
  CleanupRuleSchema,
  RegistrySchema,
};
export { CLEANUP_PRERELEASES } from './sections/cleanup-rules.js';

export const HubConfigSchema = Type.Object(
  {
    server: ServerSchema,
    database: DatabaseSchema,
    storage: StorageSchema,
    auth: AuthSchema,
    limits: LimitsSchema,
    cache: CacheSchema,
    audit_log: AuditLogSchema,
    metrics: MetricsSchema,
    plugins: PluginsSchema,
    registries: Type.Array(RegistrySchema, {
      default: [],
      description: 'Served registries, as `[[registries]]` tables.',
    }),
  },
  { ...strict, description: 'hub.toml' },
);

export type ServerConfig = Static<typeof ServerSchema>;
export type DatabaseConfig = Static<typeof DatabaseSchema>;
export type StorageConfig = Static<typeof StorageSchema>;
export type PolicyConfig = Static<typeof PolicySchema>;
export type AuthConfig = Static<typeof AuthSchema>;
export type LimitsConfig = Static<typeof LimitsSchema>;
export type CacheConfig = Static<typeof CacheSchema>;
export type AuditLogConfig = Static<typeof AuditLogSchema>;
export type AuditExportConfig = Static<typeof AuditExportSchema>;
export type MetricsConfig = Static<typeof MetricsSchema>;
export type PluginsConfig = Static<typeof PluginsSchema>;
export type UpstreamAuthConfig = Static<typeof UpstreamAuthSchema>;
export type SecurityConfig = Static<typeof SecuritySchema>;
export type CleanupRuleConfig = Static<typeof CleanupRuleSchema>;

/** A registry entry; `extra` holds the kind's own keys, validated and defaulted by its configSchema. */
export type RegistryConfig = Static<typeof RegistrySchema> & { extra: Record<string, unknown> };

/** `sections` holds the plugins' own sections by name, validated and defaulted by each plugin's schema. */
export type HubConfig = Omit<Static<typeof HubConfigSchema>, 'registries'> & {
  registries: RegistryConfig[];
  sections: Record<string, unknown>;
};

/**
 * A plugin's own top-level hub.toml section: its schema, and checks across its keys (after `*_env`
 * secrets are resolved), each naming a key path inside the section.
 */
export interface ConfigSection<S extends TSchema = TSchema> {
  section: string;
  schema: S;
  /** Rules across keys; `config` is the rest of the file, for rules that reach outside the section. Keys are the section's. */
  check?(value: Static<S>, config: HubConfig): Array<{ key: ReadonlyArray<string | number>; message: string }>;
}

/** Kind id -> the kind's configSchema (extra [[registries]] keys). */
export type KindSchemas = ReadonlyMap<string, TSchema>;
