import { definePlugin } from '@hub/runtime';
import { createIssuerClient } from './issuer/issuer-client.js';
import { createIssuerKeys, discover, type ProviderMetadata } from './issuer/issuer-keys.js';
import { oidcSection } from './oidc/config.js';
import { oidcMigrations } from './oidc/migrations.js';
import { createPendingLogins } from './oidc/pending-logins.js';
import { createProfiles } from './oidc/profiles.js';
import { oidcSignIn } from './oidc/sign-in.js';
import { mountDeviceLogin } from './oidc/device-login.js';

export { OidcSchema, type OidcConfig } from './oidc/config.js';
export { mappedRoles } from './oidc/role-mapping.js';
export { ALGORITHMS, CLOCK_SKEW_SECS } from './issuer/verify-jwt.js';

/** Discovery is read again after this long (endpoints rarely move; keys have their own schedule). */
const METADATA_TTL_MS = 60 * 60_000;

/**
 * Single sign-on for the console through an OpenID Provider (`[auth.oidc]`): adds an "oidc" sign-in method the
 * console offers beside token sign-in (`ctx.signIns`). People become users `oidc:<sub>` whose roles the provider's
 * `roles_claim` sets at every sign-in. Without `issuer` and `client_id` the plugin does nothing.
 */
export default definePlugin({
  id: 'auth-oidc',
  deps: ['access', 'config', 'db', 'jsonBody', 'log', 'pluginConfig', 'router', 'services', 'signIns'],
  contract: 1,
  requires: ['console'],
  description:
    "Single sign-on (OpenID Connect) for the console: authorization code flow with PKCE, roles from the provider's groups",
  config: oidcSection,
  migrations: oidcMigrations,
  setup(ctx) {
    const cfg = ctx.pluginConfig;
    if (cfg.issuer === undefined || cfg.client_id === undefined) return;
    const issuer = cfg.issuer;
    const client = createIssuerClient({ issuer, forbiddenNetworks: ctx.config.server.forbidden_networks });
    let meta: { value: Promise<ProviderMetadata>; at: number } | undefined;
    const metadata = (): Promise<ProviderMetadata> => {
      if (!meta || Date.now() - meta.at > METADATA_TTL_MS) {
        const value = discover(client, issuer);
        meta = { value, at: Date.now() };
        // A failed read is not remembered: the next sign-in asks again.
        value.catch(() => (meta = undefined));
      }
      return meta.value;
    };
    const keys = createIssuerKeys({ client, jwksUrl: async () => (await metadata()).jwks_uri, log: ctx.log });
    const deps = {
      config: { ...cfg, issuer, client_id: cfg.client_id },
      client,
      metadata,
      keys,
      logins: createPendingLogins(ctx.db),
      profiles: createProfiles(ctx.db),
      services: ctx.services,
      log: ctx.log,
    };
    ctx.signIns.push(oidcSignIn(deps));
    // `hub login`: the device flow, when the provider offers it.
    mountDeviceLogin(ctx.router, ctx.jsonBody, deps);
    return { stop: () => client.close() };
  },
});
