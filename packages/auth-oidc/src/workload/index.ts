import { definePlugin, errors } from '@hub/runtime';
import { createIssuerClient } from '../issuer/issuer-client.js';
import { createIssuerKeys, discover, type IssuerKeys } from '../issuer/issuer-keys.js';
import { workloadSection, type WorkloadConfig } from './config.js';
import { createExchanger } from './exchange.js';
import { workloadMigrations } from './migrations.js';
import { createReplayGuard } from './replay-guard.js';
import { workloadGrants } from './workload-grants.js';

export { WorkloadSchema, WorkloadsSchema, type WorkloadConfig } from './config.js';
export { workloadUser } from './workload-grants.js';

export const EXCHANGE_PATH = '/api/v1/auth/exchange';

/** The identity token a request carries: `{"token": "..."}` in a JSON body, or `Authorization: Bearer <jwt>`. */
function presentedToken(body: unknown, authorization: string): string {
  if (body !== undefined) {
    const token = (body as { token?: unknown } | null)?.token;
    if (typeof token !== 'string' || token.length === 0 || Object.keys(body as object).length !== 1)
      throw errors.badRequest('the body must be {"token": "<the CI job\'s identity token>"}');
    return token;
  }
  const m = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  if (!m) throw errors.unauthenticated('send the CI job\'s identity token as {"token": ...} or Authorization: Bearer');
  return m[1]!;
}

/**
 * Workload identity for CI (trusted publishing): `[[auth.workload]]` entries name the issuers, audiences and claims
 * hub trusts; `POST /api/v1/auth/exchange` turns a matching identity token into a short-lived hub token. Without
 * an entry the plugin mounts nothing.
 */
export default definePlugin({
  id: 'auth-workload',
  deps: ['access', 'config', 'db', 'jsonBody', 'log', 'pluginConfig', 'router', 'services'],
  contract: 1,
  description:
    "Workload identity for CI: a job's identity token (JWT) exchanged for a short-lived hub token at POST /api/v1/auth/exchange",
  config: workloadSection,
  migrations: workloadMigrations,
  async setup(ctx) {
    const workloads = ctx.pluginConfig;
    if (workloads.length === 0) return;
    // One key set per (issuer, jwks_url): entries sharing an issuer share its keys.
    const keys = new Map<string, IssuerKeys>();
    const clients: Array<{ close(): Promise<void> }> = [];
    const keysFor = (w: WorkloadConfig): IssuerKeys => {
      const id = `${w.issuer}\n${w.jwks_url ?? ''}`;
      let k = keys.get(id);
      if (!k) {
        const client = createIssuerClient({
          issuer: w.issuer,
          alsoTrusted: w.jwks_url ? [w.jwks_url] : [],
          forbiddenNetworks: ctx.config.server.forbidden_networks,
        });
        clients.push(client);
        const jwksUrl = w.jwks_url ? async () => w.jwks_url! : async () => (await discover(client, w.issuer)).jwks_uri;
        k = createIssuerKeys({ client, jwksUrl, log: ctx.log });
        keys.set(id, k);
      }
      return k;
    };
    for (const w of workloads) {
      const { policy } = workloadGrants(w);
      if (policy) ctx.access.policies.addConfigured([policy]);
    }
    const exchanger = createExchanger({
      workloads,
      keysFor,
      replay: createReplayGuard(ctx.db),
      services: ctx.services,
      log: ctx.log,
    });
    ctx.router.post(EXCHANGE_PATH, ctx.jsonBody, async (k) => {
      const audit: Record<string, unknown> = { action: 'workload_exchange' };
      k.state.audit = audit;
      k.set('Cache-Control', 'no-store');
      const jwt = presentedToken((k.request as { body?: unknown }).body, k.get('authorization'));
      const answer = await exchanger.exchange(jwt, (a) => Object.assign(audit, a));
      k.status = 201;
      k.body = answer;
    });
    return { stop: async () => void (await Promise.allSettled(clients.map((c) => c.close()))) };
  },
});
