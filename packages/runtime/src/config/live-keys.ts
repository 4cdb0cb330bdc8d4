/**
 * Which keys a hot reload may change while hub runs (decision 0057). An allow list: a key not named here
 * (the listener, the database, the blob store, the memory budgets sized at start...) needs a restart, and a
 * reload that changes one is refused naming it, so nothing is half-applied.
 */
import type { KeyChange } from './config-diff.js';

/** Key paths (and whole tables, by prefix) swapped on reload. */
const LIVE = [
  // Every registry key: a changed registry is bound again (its kind, upstream client, network, TTLs).
  'registries.',
  // How upstream clients are built: every registry is bound again.
  'server.upstream_proxy',
  'server.upstream_proxy_env',
  'server.upstream_no_proxy',
  'server.ca_file',
  'server.forbidden_networks',
  'server.connect_timeout_ms',
  'server.headers_timeout_ms',
  'server.deadline_ms',
  'server.mirror_breaker_failures',
  'server.mirror_breaker_open_ms',
  'server.log_level',
  'server.drain_secs',
  'server.shutdown_grace_ms',
  'auth.anonymous',
  'auth.policies',
  'limits.rate_per_ip',
  'limits.burst_per_ip',
  'limits.challenges_per_ip',
  'limits.challenge_burst_per_ip',
  'limits.packages_per_page',
] as const;

/** The server keys that shape upstream clients: a change binds every registry again. */
export const NETWORK_KEYS: readonly string[] = LIVE.filter(
  (k) => k.startsWith('server.') && !['server.log_level', 'server.drain_secs', 'server.shutdown_grace_ms'].includes(k),
);

const isLive = (key: string, liveSections: ReadonlySet<string>): boolean =>
  LIVE.some((l) => (l.endsWith('.') ? key.startsWith(l) : key === l)) ||
  [...liveSections].some((s) => key === s || key.startsWith(`${s}.`));

/**
 * The refusal of each change that needs a restart, in hub.toml's words: `[database] url cannot change while
 * hub runs; restart to apply`. `liveSections`: plugin sections whose plugin applies a reload itself.
 */
export function restartOnly(changes: readonly KeyChange[], liveSections: ReadonlySet<string>): string[] {
  return changes
    .filter((c) => !isLive(c.key, liveSections))
    .map((c) => `${tomlKey(c.path)} cannot change while hub runs; restart to apply`);
}

/** `[database] url`, `[server] listen`, `[upstream_audit] interval_secs`. */
export function tomlKey(path: readonly string[]): string {
  if (path.length === 1) return `[${path[0]}]`;
  return `[${path[0]}] ${path.slice(1).join('.')}`;
}
