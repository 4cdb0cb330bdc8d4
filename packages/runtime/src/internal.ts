/**
 * @hub/runtime/internal: what hub's own CLI, test kit and benchmarks use beside the public surface
 * (composition without serving, migrations, configFromObject for the CLI's built-in default). No compatibility promise.
 */
export { composePlugins, checkPlugins, type ComposeOptions, type Composition } from './plugins/compose.js';
export { HubConfigSchema, type KindSchemas } from './config/schema.js';
export { createDb, migrate } from './storage/db.js';
export { runtimeMigrations } from './storage/migrations/index.js';
export { createLogger, flushLog, logDestination } from './log.js';
export { configFromObject, parseDocument, readConfigFile } from './config/load.js';
export { pruneAccessEvents } from './audit/prune.js';
