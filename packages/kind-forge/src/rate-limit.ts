import { HubError, isHubError, type RequestContext } from '@hub/contract';
import type { Forge, Headers } from './forges.js';

/** The upstream status rc.artifact refused with, when it was one that can mean "rate limit". */
export function refusedStatus(e: unknown): 403 | 429 | undefined {
  if (!isHubError(e) || e.code !== 'upstream_error') return undefined;
  const status = e.detail['status'];
  return status === 403 || status === 429 ? status : undefined;
}

/** Seconds until the upstream's limit resets, from Retry-After or a reset epoch header. */
function retryAfter(h: Headers): string | undefined {
  const ra = h['retry-after'];
  if (ra && /^\d+$/.test(ra)) return ra;
  const reset = h['x-ratelimit-reset'] ?? h['ratelimit-reset'];
  if (reset && /^\d+$/.test(reset)) return String(Math.max(1, Number(reset) - Math.floor(Date.now() / 1000)));
  return undefined;
}

/** The 403 a client gets instead of a bare 502: what happened and what the operator should configure. */
export function rateLimitError(registry: string, h: Headers): HubError {
  const wait = retryAfter(h);
  return new HubError(
    'upstream_rate_limited',
    `the upstream of registry "${registry}" refused the request: its API rate limit is reached (anonymous requests get a small hourly quota). ` +
      `Configure a forge access token for it in hub.toml, in the [[registries]] entry with name = "${registry}": ` +
      `upstream_auth = { token_env = "FORGE_TOKEN" } (or token = "..."), then restart hub. ` +
      `If upstream_auth is already set, that token's own limit is reached${wait ? `; it resets in about ${wait}s` : ''}.`,
    { headers: wait ? { 'Retry-After': wait } : {}, detail: { upstreamStatus: 'rate_limited' } },
  );
}

/**
 * rc.artifact turns any upstream status but 200/404/410 into a 502 and keeps no headers, so a 403 is
 * asked about once more (HEAD, only on this failure path) to read the forge's rate-limit headers.
 * A 429 needs no second look. Returns the error to throw instead, or undefined to keep the original.
 */
export async function explainRefusal(
  rc: RequestContext,
  forge: Forge,
  url: string,
  status: 403 | 429,
): Promise<HubError | undefined> {
  if (status === 429) return rateLimitError(rc.registry.name, {});
  try {
    const res = await rc.upstream.request(url, { method: 'HEAD', deadlineMs: 10_000 });
    res.body.destroy();
    return forge.rateLimited(res.status, res.headers) ? rateLimitError(rc.registry.name, res.headers) : undefined;
  } catch (e) {
    rc.log.debug({ err: (e as Error).message }, 'rate-limit check failed');
    return undefined;
  }
}
