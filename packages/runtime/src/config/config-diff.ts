/**
 * The keys that differ between two loaded configurations, for a hot reload's refusal and its audit row.
 * Registries are keyed by name (`registries.npm.upstream`), so removing the first one is one removal, not
 * a change of every entry after it. Values of secrets are masked: a reload's record must never carry one.
 */
import type { HubConfig } from './schema.js';

export interface KeyChange {
  /** Dotted key path as hub.toml spells it: `server.deadline_ms`, `registries.npm.upstream`, `flag_sources.osv.secret`. */
  key: string;
  /** The path's segments: `['registries', 'npm', 'upstream']`. */
  path: readonly string[];
  /** Masked when the key holds a secret; undefined when the key was absent. */
  before?: unknown;
  after?: unknown;
}

/** A key holding a secret: by its name, or because the schema gives it an `_env` twin (secretPair). */
const SECRET_NAME = /(?:secrets?|password|token|key)$/i;
const MASK = '***';

/**
 * Every key whose value differs, in a stable order. A table present on one side only (an added or removed
 * registry, a new flag source) is one change named by the table, its keys shown with secrets masked.
 */
export function diffConfig(before: HubConfig, after: HubConfig): KeyChange[] {
  const out: KeyChange[] = [];
  walk(comparable(before), comparable(after), [], out);
  return out;
}

function walk(a: Record<string, unknown>, b: Record<string, unknown>, path: string[], out: KeyChange[]): void {
  for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const x = a[k];
    const y = b[k];
    const p = [...path, k];
    if (isTable(x) && isTable(y)) walk(x, y, p, out);
    else if (!same(x, y))
      out.push({
        key: p.join('.'),
        path: p,
        ...(x === undefined ? {} : { before: shown(k, x, a) }),
        ...(y === undefined ? {} : { after: shown(k, y, b) }),
      });
  }
}

const isTable = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The config as hub.toml spells it: registries keyed by name with the kind's keys beside the base ones, plugin sections at the top. */
function comparable(c: HubConfig): Record<string, unknown> {
  const { registries, sections, ...rest } = c;
  const out: Record<string, unknown> = { ...rest };
  out.registries = Object.fromEntries(registries.map(({ extra, ...base }) => [base.name, { ...base, ...extra }]));
  for (const [name, value] of Object.entries(sections))
    setPath(out, name.split('.'), Array.isArray(value) && value.every(named) ? byName(value) : value);
  return out;
}

const named = (v: unknown): v is { name: string } =>
  typeof v === 'object' && v !== null && typeof (v as { name?: unknown }).name === 'string';
const byName = (list: Array<{ name: string }>) => Object.fromEntries(list.map((v) => [v.name, v]));

/** Sets a plugin section (`auth.oidc` inside `[auth]`) on a copy of each table on the way: the config in force is never written. */
function setPath(into: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = into;
  for (const p of path.slice(0, -1)) {
    const next = node[p];
    node = node[p] = isTable(next) ? { ...next } : {};
  }
  node[path[path.length - 1]!] = value;
}

function isSecret(key: string, table: Record<string, unknown>): boolean {
  if (key.endsWith('_env')) return false;
  return SECRET_NAME.test(key) || `${key}_env` in table;
}

/** A value as a reload's record shows it: secrets masked, also inside lists of tables (`[[notifications.webhooks]]`). */
function shown(key: string, v: unknown, table: Record<string, unknown>): unknown {
  if (isSecret(key, table)) return MASK;
  return masked(v);
}

function masked(v: unknown): unknown {
  // `mysql://user:pass@host/db`, a proxy URL with credentials: the user info is masked wherever a URL appears.
  if (typeof v === 'string') return v.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, `$1${MASK}@`);
  if (Array.isArray(v)) return v.map(masked);
  if (typeof v === 'object' && v !== null) {
    const t = v as Record<string, unknown>;
    return Object.fromEntries(Object.entries(t).map(([k, x]) => [k, shown(k, x, t)]));
  }
  return v;
}

/** Config values are JSON (TOML tables, arrays, strings, numbers, booleans). */
function same(x: unknown, y: unknown): boolean {
  return JSON.stringify(x) === JSON.stringify(y);
}
