// How every bench starts a hub: state in `dir` (SQLite and a blob folder unless told otherwise), per-IP rate
// limits out of the way (one client address drives all the load), the bench's admin token, the log in a file
// (in batches, as `hub serve` writes its stdout).
import { createHub } from '@hub/runtime';
import { createLogger, logDestination } from '@hub/runtime/internal';
import { pluginsForConfig } from '../packages/cli/dist/src/plugins.js';

export const BENCH_ADMIN_TOKEN = 'hub_bench_admin_token_0123456789abcdef';

/**
 * `toml`: the rest of hub.toml (auth, cache, registries). `database`: the [database] table's body (default
 * SQLite in `dir`); `blobs`: the blob folder (default `dir`/blobs); `log`: a file path, or null for none.
 * Without `plugins`, the plugins `hub serve` would load for this config.
 */
export async function benchHub({
  plugins,
  dir,
  toml,
  database = `client = "sqlite"\nfilename = "${dir}/hub.db"`,
  blobs = `${dir}/blobs`,
  log = `${dir}/hub.log`,
  logLevel = 'warn',
}) {
  const configText = `[server]\nlisten = "127.0.0.1:0"\n[database]\n${database}\n[storage]\nkind = "fs"\npath = "${blobs}"\n[limits]\nrate_per_ip = 1000000000\nburst_per_ip = 1000000000\n${toml}`;
  return createHub({
    plugins: plugins ?? (await pluginsForConfig({ configText })),
    configText,
    env: { HUB_ADMIN_TOKEN: BENCH_ADMIN_TOKEN },
    logger:
      log === null
        ? createLogger({ level: 'silent' })
        : createLogger({ level: logLevel, destination: logDestination(log) }),
    print: () => {},
  });
}
