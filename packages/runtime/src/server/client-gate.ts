import type Koa from 'koa';
import { errors } from '@hub/contract';
import type { RateLimitStore } from '../limits/rate-limit-store.js';
import type { ClientRule } from '../contract/plugin.js';
import { rateLimitKey } from './client-address.js';

/** Load balancers must always be able to ask whether a replica is up. */
const UNGATED = new Set(['/healthz']);

/**
 * Before any route: the plugins' client rules may refuse the client IP (@hub/ip-blocks: 403 `ip_blocked`),
 * and a client over its rate gets 429 `rate_limited` with Retry-After. A 401 that only asked a credential-less client for credentials
 * (ctx.state.challenged) gives its token back, so challenge-then-credentials clients (maven, NuGet)
 * are not charged twice per file; it takes one from the IP's challenge bucket instead, and past that
 * budget the answer is 429, so requests without credentials cannot flood the hub for free.
 */
export function clientGate(d: {
  rules: readonly ClientRule[];
  rates: RateLimitStore;
  challenges: RateLimitStore;
}): Koa.Middleware {
  return async (ctx, next) => {
    if (UNGATED.has(ctx.path)) return next();
    const ip = ctx.state.clientIp as string;
    // Both answered without a promise when they can (a rule's fresh memo, the in-process rate store).
    for (const rule of d.rules) {
      let refusal = rule.refusalNow(ip);
      if (refusal === undefined) refusal = await rule.refusal(ip);
      if (refusal) throw refusal;
    }
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
