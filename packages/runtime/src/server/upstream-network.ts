/**
 * How hub reaches the outside on a company network: the forward proxy and the TLS trust of the server and of
 * each registry, from hub.toml and, without `upstream_proxy`, the environment (docs/decisions/0047).
 */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import {
  createNetworkDispatcher,
  proxySettingsFromEnv,
  redactUrl,
  type NetworkDispatcher,
  type ProxySettings,
  type UpstreamTls,
} from '@hub/upstream';
import type { HubConfig, RegistryConfig } from '../config/schema.js';

export interface UpstreamNetwork {
  proxy: ProxySettings;
  tls: UpstreamTls;
}

const read = (file: string): string => readFileSync(file, 'utf8');

function proxyFromUrl(url: string, noProxy: readonly string[]): ProxySettings {
  return { httpProxy: url, httpsProxy: url, noProxy };
}

/** The server-level settings: `upstream_proxy` (else the environment) and `ca_file`. */
export function serverNetwork(config: HubConfig, env: NodeJS.ProcessEnv): UpstreamNetwork {
  const s = config.server;
  return {
    proxy:
      s.upstream_proxy !== undefined ? proxyFromUrl(s.upstream_proxy, s.upstream_no_proxy) : proxySettingsFromEnv(env),
    tls: s.ca_file !== undefined ? { ca: [read(s.ca_file)] } : {},
  };
}

/** One registry's: its `proxy` (or `"none"`) over the server's, its `ca_file` added to the server's, its client certificate. */
export function registryNetwork(server: UpstreamNetwork, config: HubConfig, r: RegistryConfig): UpstreamNetwork {
  const proxy =
    r.proxy === 'none'
      ? {}
      : r.proxy !== undefined
        ? proxyFromUrl(r.proxy, config.server.upstream_no_proxy)
        : server.proxy;
  const ca = [...(server.tls.ca ?? []), ...(r.ca_file !== undefined ? [read(r.ca_file)] : [])];
  const client =
    r.client_cert !== undefined && r.client_key !== undefined
      ? { cert: read(r.client_cert), key: read(r.client_key) }
      : {};
  return { proxy, tls: { ...(ca.length ? { ca } : {}), ...client } };
}

/** One start line saying which proxy is used and why, without credentials. */
export function logNetwork(log: Logger | undefined, config: HubConfig, server: UpstreamNetwork): void {
  const from = config.server.upstream_proxy !== undefined ? '[server] upstream_proxy' : 'HTTPS_PROXY/HTTP_PROXY';
  const proxies = [
    ...new Set([server.proxy.httpsProxy, server.proxy.httpProxy].filter((p): p is string => p !== undefined)),
  ].map(redactUrl);
  if (proxies.length)
    log?.info({ proxies, no_proxy: server.proxy.noProxy ?? [], from }, 'upstream requests go through a forward proxy');
  if (config.server.ca_file !== undefined)
    log?.info({ ca_file: config.server.ca_file }, "upstream TLS trusts the CAs of ca_file besides Node's defaults");
}

/**
 * An undici dispatcher with the server-level proxy and CAs, for fetches from configured services outside a
 * registry (an identity provider's discovery document and keys). Address checks are the caller's business.
 */
export function serverDispatcher(config: HubConfig, env: NodeJS.ProcessEnv = process.env): Promise<NetworkDispatcher> {
  const { proxy, tls } = serverNetwork(config, env);
  return createNetworkDispatcher({
    proxy,
    tls,
    connectTimeoutMs: config.server.connect_timeout_ms,
    headersTimeoutMs: config.server.headers_timeout_ms,
  });
}
