import { readCapped, type RegistryInfo, type UpstreamClient } from '@hub/contract';
import type { OciConfig } from './config.js';

/** What the upstream's `/v2/` asked for: nothing, Basic credentials, or a token from its token service. */
type Scheme = { type: 'none' } | { type: 'basic' } | { type: 'bearer'; realm: URL; service?: string };

export interface AuthContext {
  registry: RegistryInfo<OciConfig>;
  upstream: UpstreamClient;
}

const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;
/** The distribution token spec's default lifetime when the answer names none. */
const DEFAULT_TOKEN_SECS = 60;
/** A token is renewed this long before it expires, so none expires on its way upstream. */
const RENEW_MARGIN_SECS = 10;
const MAX_TOKENS = 10_000;

// Per process, keyed by registry, upstream and user: the learnt scheme, and tokens until they expire.
const schemes = new Map<string, Scheme>();
const tokens = new Map<string, { token: string; expiresAt: number }>();

const registryKey = (ac: AuthContext) =>
  `${ac.registry.name}\0${ac.registry.upstream}\0${ac.registry.config.username ?? ''}`;

/** Parses `Bearer realm="...",service="...",scope="..."` (or `Basic realm=...`) into its scheme and parameters. */
export function parseChallenge(header: string): { scheme: string; params: Record<string, string> } | null {
  const m = /^\s*([A-Za-z]+)\s*(.*)$/s.exec(header);
  if (!m) return null;
  const params: Record<string, string> = {};
  for (const p of m[2]!.matchAll(/([A-Za-z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g))
    params[p[1]!.toLowerCase()] = (p[2] ?? p[3] ?? '').replace(/\\(.)/g, '$1');
  return { scheme: m[1]!.toLowerCase(), params };
}

function basic(cfg: OciConfig): string | undefined {
  return cfg.username !== undefined && cfg.password !== undefined
    ? `Basic ${Buffer.from(`${cfg.username}:${cfg.password}`).toString('base64')}`
    : undefined;
}

/** The scheme from a 401's challenge; null when it names none hub can answer. */
function schemeOf(wwwAuthenticate: string | undefined, upstream: string): Scheme | null {
  const c = wwwAuthenticate ? parseChallenge(wwwAuthenticate) : null;
  if (c?.scheme === 'basic') return { type: 'basic' };
  if (c?.scheme !== 'bearer' || !c.params.realm) return null;
  let realm: URL;
  try {
    realm = new URL(c.params.realm, upstream);
  } catch {
    return null;
  }
  if (realm.protocol !== 'https:' && realm.protocol !== 'http:') return null;
  return { type: 'bearer', realm, ...(c.params.service ? { service: c.params.service } : {}) };
}

/** Asks the upstream's `/v2/` once per process which scheme it wants; null when it cannot tell (down, a 5xx). */
async function learnScheme(ac: AuthContext): Promise<Scheme | null> {
  const key = registryKey(ac);
  const known = schemes.get(key);
  if (known) return known;
  let status: number;
  let challenge: string | undefined;
  try {
    const res = await ac.upstream.request(`${ac.registry.upstream}/v2/`, { maxBytes: MAX_TOKEN_ANSWER_BYTES });
    res.body.destroy();
    status = res.status;
    challenge = res.headers['www-authenticate'];
  } catch {
    return null;
  }
  const scheme =
    status === 401 ? schemeOf(challenge, ac.registry.upstream!) : status === 200 ? ({ type: 'none' } as const) : null;
  if (scheme) schemes.set(key, scheme);
  return scheme;
}

/**
 * The configured credentials go to a token service only over https, or on the upstream's own host: the realm is
 * named by the upstream's answer, and a plain-http realm elsewhere would carry them in clear to wherever it says.
 */
export function mayCarryCredentials(realm: URL, upstream: string): boolean {
  return realm.protocol === 'https:' || realm.hostname === new URL(upstream).hostname;
}

/** A token for `scope` from the realm (the address policy applies to it like to any upstream URL); cached until it expires. */
async function token(
  ac: AuthContext,
  scheme: Extract<Scheme, { type: 'bearer' }>,
  scope: string,
): Promise<string | null> {
  const key = `${registryKey(ac)}\0${scope}`;
  const cached = tokens.get(key);
  if (cached && cached.expiresAt > Date.now()) return cached.token;
  const url = new URL(scheme.realm);
  if (scheme.service) url.searchParams.set('service', scheme.service);
  url.searchParams.set('scope', scope);
  const creds = basic(ac.registry.config);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (creds && mayCarryCredentials(scheme.realm, ac.registry.upstream!)) headers['authorization'] = creds;
  const res = await ac.upstream.request(url.href, { headers, maxBytes: MAX_TOKEN_ANSWER_BYTES });
  if (res.status !== 200) {
    res.body.destroy();
    return null;
  }
  let answer: { token?: unknown; access_token?: unknown; expires_in?: unknown };
  try {
    answer = JSON.parse((await readCapped(res.body, MAX_TOKEN_ANSWER_BYTES)).toString('utf8')) as typeof answer;
  } catch {
    return null;
  }
  const value =
    typeof answer.token === 'string'
      ? answer.token
      : typeof answer.access_token === 'string'
        ? answer.access_token
        : null;
  if (!value || !/^[\x21-\x7e]+$/.test(value)) return null;
  const secs = typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : DEFAULT_TOKEN_SECS;
  if (tokens.size >= MAX_TOKENS) tokens.delete(tokens.keys().next().value!);
  tokens.set(key, { token: value, expiresAt: Date.now() + Math.max(0, secs - RENEW_MARGIN_SECS) * 1000 });
  return value;
}

/**
 * The Authorization header for pulls of `repository` from the upstream, done the way registries ask: none,
 * the configured Basic credentials, or a Bearer token fetched server-side for `repository:<repo>:pull`.
 * Tokens never leave hub. When the scheme or the token cannot be had (the upstream is down), no header: the
 * request then fails upstream and the cache serves its last good copy.
 */
export async function upstreamAuthHeaders(ac: AuthContext, repository: string): Promise<Record<string, string>> {
  const scheme = await learnScheme(ac);
  if (!scheme || scheme.type === 'none') return {};
  if (scheme.type === 'basic') {
    const creds = basic(ac.registry.config);
    return creds ? { authorization: creds } : {};
  }
  const t = await token(ac, scheme, `repository:${repository}:pull`).catch(() => null);
  return t ? { authorization: `Bearer ${t}` } : {};
}

/** After an upstream 401: the scheme is asked again and the repository's token dropped. */
export function forgetUpstreamAuth(ac: AuthContext, repository: string): void {
  schemes.delete(registryKey(ac));
  tokens.delete(`${registryKey(ac)}\0repository:${repository}:pull`);
}
