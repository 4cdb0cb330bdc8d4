/**
 * Which forward proxy, if any, a request to a URL goes through: `[server] upstream_proxy` / a registry's
 * `proxy`, else the conventional environment variables, with a no-proxy list of hosts reached directly
 * (docs/decisions/0047-company-networks.md).
 */
import { createAddressMatcher, parseIp } from './ip-ranges.js';

export interface ProxySettings {
  /** Proxy for http:// targets (absolute-form requests). */
  httpProxy?: string;
  /** Proxy for https:// targets (CONNECT tunnels). */
  httpsProxy?: string;
  /** Hosts reached directly: `host`, `.domain` / `*.domain` (the domain and below), `host:port`, an IP address or CIDR range, or `*`. */
  noProxy?: readonly string[];
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY, the lower-case form first (as curl reads them); an https target with
 * only HTTP_PROXY set goes through it too (as undici and most tools do). Empty values count as unset.
 */
export function proxySettingsFromEnv(env: NodeJS.ProcessEnv): ProxySettings {
  const pick = (name: string): string | undefined =>
    (env[name.toLowerCase()] || env[name.toUpperCase()] || undefined)?.trim() || undefined;
  const httpProxy = pick('http_proxy');
  const httpsProxy = pick('https_proxy') ?? httpProxy;
  const noProxy = splitNoProxy(pick('no_proxy') ?? '');
  return { ...(httpProxy ? { httpProxy } : {}), ...(httpsProxy ? { httpsProxy } : {}), noProxy };
}

/** A NO_PROXY-style list: comma or whitespace separated. */
export function splitNoProxy(text: string): string[] {
  return text.split(/[,\s]+/).filter((s) => s !== '');
}

/** The proxy URL for `target`, or undefined to connect directly. */
export function proxyFor(settings: ProxySettings, target: URL): string | undefined {
  const proxy = target.protocol === 'https:' ? settings.httpsProxy : settings.httpProxy;
  if (proxy === undefined || proxy === '') return undefined;
  return bypassesProxy(settings.noProxy ?? [], target) ? undefined : proxy;
}

function bypassesProxy(entries: readonly string[], target: URL): boolean {
  const host = target.hostname
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.$/, '');
  const port = Number(target.port) || DEFAULT_PORTS[target.protocol] || 0;
  return entries.some((raw) => matches(raw.trim().toLowerCase(), host, port));
}

function matches(entry: string, host: string, port: number): boolean {
  if (entry === '*') return true;
  if (entry.includes('/')) return inCidr(entry, host);
  let name = entry;
  // host:port, and [v6]:port; a bare IPv6 address has colons but no brackets.
  const withPort = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(entry);
  if (withPort) {
    if (Number(withPort[2]) !== port) return false;
    name = withPort[1]!;
  }
  name = name
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/^\*?\./, '')
    .replace(/\.$/, '');
  return name !== '' && (host === name || host.endsWith(`.${name}`));
}

/** `10.0.0.0/8` and friends match IP-literal targets only (names are not resolved for this); a bad range matches nothing. */
function inCidr(entry: string, host: string): boolean {
  if (!parseIp(host)) return false;
  try {
    return createAddressMatcher([entry])(host);
  } catch {
    return false;
  }
}
