import net from 'node:net';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { PERMISSIONS } from '@hub/runtime';
import { UsageError } from './usage.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | undefined>;

/** The options every admin command takes (packages/cli/README.md). */
export const CONNECTION_OPTIONS: OptionSpec = {
  url: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
};

/**
 * Parses `argv` strictly: an unknown flag, a missing option value or a positional the command does
 * not take is a UsageError (exit 2) whose hint names `command`.
 */
export function parse(
  argv: string[],
  options: OptionSpec,
  o: { command: string; positionals?: { min: number; max: number } },
): { values: Values; positionals: string[] } {
  const { min, max } = o.positionals ?? { min: 0, max: 0 };
  let parsed: { values: Values; positionals: string[] };
  try {
    const r = parseArgs({
      args: argv,
      options: { help: { type: 'boolean', short: 'h' }, ...options },
      allowPositionals: max > 0,
      strict: true,
    });
    parsed = { values: r.values, positionals: r.positionals };
  } catch (e) {
    throw new UsageError((e as Error).message, o.command);
  }
  if (parsed.values.help) return parsed;
  const n = parsed.positionals.length;
  if (n > max) throw new UsageError(`unexpected argument "${parsed.positionals[max]}"`, o.command);
  if (n < min) throw new UsageError(`missing argument${min - n > 1 ? 's' : ''}`, o.command);
  return parsed;
}

/** A string option's value, or undefined; an empty string is bad usage. */
export function str(values: Values, name: string, command: string): string | undefined {
  const v = values[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} needs a value`, command);
  return v;
}

export function required(values: Values, name: string, command: string): string {
  const v = str(values, name, command);
  if (v === undefined) throw new UsageError(`--${name} is required`, command);
  return v;
}

/**
 * A value given either as an option or as a positional argument (the documented usage writes `block <registry>
 * <package>`; the other commands use options). Giving both is bad usage.
 */
export function optionOrPositional(
  values: Values,
  name: string,
  positional: string | undefined,
  command: string,
  opts: { required: boolean },
): string | undefined {
  const flag = str(values, name, command);
  if (flag !== undefined && positional !== undefined)
    throw new UsageError(`give the ${name} either as --${name} or as an argument, not both`, command);
  const v = flag ?? positional;
  if (v === undefined && opts.required) throw new UsageError(`--${name} is required`, command);
  return v;
}

export function exclusive(values: Values, names: string[], command: string): void {
  const given = names.filter((n) => values[n] !== undefined);
  if (given.length > 1)
    throw new UsageError(`${given.map((n) => `--${n}`).join(' and ')} cannot be used together`, command);
}

/** A comma-separated list: "a, b,c" -> ["a","b","c"]; an empty list is bad usage. */
export function list(value: string | undefined, name: string, command: string): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!items.length) throw new UsageError(`--${name} needs at least one value`, command);
  return items;
}

export function positiveInt(value: string | undefined, name: string, command: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value)))
    throw new UsageError(`--${name} must be a positive whole number, not "${value}"`, command);
  return Number(value);
}

const UNIT_SECS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** Seconds from "3600", "90s", "15m", "12h", "30d" or "2w". */
export function duration(value: string | undefined, name: string, command: string): number | undefined {
  if (value === undefined) return undefined;
  const m = /^(\d+)([smhdw]?)$/.exec(value.trim());
  const secs = m ? Number(m[1]) * UNIT_SECS[m[2] || 's']! : NaN;
  if (!(secs > 0) || !Number.isSafeInteger(secs))
    throw new UsageError(`--${name} must be a duration such as 3600, 15m, 12h or 30d, not "${value}"`, command);
  return secs;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * An instant as RFC 3339 UTC. Accepts RFC 3339 ("2025-01-31T12:00:00Z"), a date or a date and time
 * without a zone (read as UTC), or a span back from now ("90m", "24h", "7d").
 */
export function instant(
  value: string | undefined,
  name: string,
  command: string,
  now = Date.now(),
): string | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  const ago = /^(\d+)([smhdw])$/.exec(v);
  if (ago) return new Date(now - Number(ago[1]) * UNIT_SECS[ago[2]!]! * 1000).toISOString();
  const m = DATE_TIME.exec(v);
  const ms = m ? Date.parse(v.includes(':') && !m[1] ? `${v.replace(' ', 'T')}Z` : v.replace(' ', 'T')) : NaN;
  if (Number.isNaN(ms))
    throw new UsageError(
      `--${name} must be a time such as 2025-01-31, 2025-01-31T12:00:00Z or 24h (ago), not "${value}"`,
      command,
    );
  return new Date(ms).toISOString();
}

/** An IPv4 or IPv6 address, or a CIDR range of either. */
export function ipOrCidr(value: string, command: string): string {
  const [addr = '', prefix, ...rest] = value.trim().split('/');
  const family = net.isIP(addr);
  const bits = family === 4 ? 32 : 128;
  const okPrefix = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
  if (!family || !okPrefix || rest.length)
    throw new UsageError(
      `"${value}" is not an IP address or CIDR range (e.g. 203.0.113.7, 198.51.100.0/24, 2001:db8::/32)`,
      command,
    );
  return value.trim();
}

/** A single IPv4 or IPv6 address. */
export function ipAddress(value: string, name: string, command: string): string {
  if (!net.isIP(value.trim())) throw new UsageError(`--${name}: "${value}" is not an IP address`, command);
  return value.trim();
}

export { PERMISSIONS };

export function permission(value: string, name: string, command: string): string {
  if (!(PERMISSIONS as readonly string[]).includes(value))
    throw new UsageError(`--${name}: unknown permission "${value}" (one of ${PERMISSIONS.join(', ')})`, command);
  return value;
}
