import type Koa from 'koa';
import { errors, HubError } from '@hub/contract';
import type { RateLimitStore } from '../limits/rate-limit-store.js';
import type { IpBlockList } from '../policy/ip-blocks.js';
import { rateLimitKey } from './client-address.js';

/** Load balancers must always be able to ask whether a replica is up. */
const UNGATED = new Set(['/healthz']);

/**
 * Before any route: a blocked client IP gets 403 `ip_blocked`, a client over its rate 429
 * `rate_limited` with Retry-After. A 401 that only asked a credential-less client for credentials
 * (ctx.state.challenged) gives its token back, so challenge-then-credentials clients (maven, NuGet)
 * are not charged twice per file; it takes one from the IP's challenge bucket instead, and past that
 * budget the answer is 429, so requests without credentials cannot flood the hub for free.
 */
export function clientGate(d: { ipBlocks: IpBlockList; rates: RateLimitStore; challenges: RateLimitStore }): Koa.Middleware {
  return async (ctx, next) => {
    if (UNGATED.has(ctx.path)) return next();
    const ip = ctx.state.clientIp as string;
    // Both answered without a promise when they can (a fresh IP block memo, the in-process rate store).
    let block = d.ipBlocks.findNow(ip);
    if (block === undefined) block = await d.ipBlocks.find(ip);
    if (block) throw new HubError('ip_blocked', `requests from ${ip} are blocked${block.reason ? `: ${block.reason}` : ''}`);
    const key = rateLimitKey(ip);
    const r = d.rates.takeNow ? d.rates.takeNow(key) : await d.rates.take(key);
    if (!r.allowed) throw errors.rateLimited(r.retryAfterSecs);
    try {
      await next();
    } catch (e) {
      if (ctx.state.challenged) {
        void d.rates.refund(key);
        const c = await d.challenges.take(key);
        if (!c.allowed) {
          ctx.state.challenged = false;
          throw errors.rateLimited(c.retryAfterSecs);
        }
      }
      throw e;
    }
  };
}
