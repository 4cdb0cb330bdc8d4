/**
 * One undici dispatcher for a company network: each request goes directly or through the forward proxy its
 * target calls for (`proxy-route.ts`), with the extra CAs and the client certificate of `tls-trust.ts`. The
 * upstream client uses it, and so can anything else in hub that fetches from configured services (an identity
 * provider's discovery document, say) with the server-level settings.
 */
import type { LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
import { proxyFor, type ProxySettings } from './proxy-route.js';
import { tlsConnectOptions, type UpstreamTls } from './tls-trust.js';

export interface NetworkOptions {
  proxy?: ProxySettings;
  tls?: UpstreamTls;
  /** TCP + TLS connect timeout, to the target or to the proxy. Default 10_000. */
  connectTimeoutMs?: number;
  /** Default 10_000. */
  headersTimeoutMs?: number;
  /** undici's idle body timeout. Default 30_000. */
  bodyTimeoutMs?: number;
  /**
   * Name resolution for direct connections (the address policy's checked lookup). A proxied request's target
   * is resolved by the proxy, so callers check its address before sending it (docs/decisions/0047).
   */
  lookup?: LookupFunction;
}

/** A dispatcher that also says which proxy (if any) a URL goes through, for error messages. */
export interface NetworkDispatcher extends Dispatcher {
  proxyFor(url: URL): string | undefined;
}

export async function createNetworkDispatcher(o: NetworkOptions = {}): Promise<NetworkDispatcher> {
  const { Agent, Dispatcher: Base, ProxyAgent } = await import('undici');
  const timeout = o.connectTimeoutMs ?? 10_000;
  const timeouts = { headersTimeout: o.headersTimeoutMs ?? 10_000, bodyTimeout: o.bodyTimeoutMs ?? 30_000 };
  const targetTls = tlsConnectOptions(o.tls);
  const proxyTls = tlsConnectOptions(o.tls, { clientCert: false });
  const direct = new Agent({
    ...timeouts,
    connect: { timeout, ...targetTls, ...(o.lookup ? { lookup: o.lookup } : {}) },
  });
  const proxies = new Map<string, Dispatcher>();
  const settings = o.proxy ?? {};

  const viaProxy = (uri: string): Dispatcher => {
    let agent = proxies.get(uri);
    if (!agent) {
      agent = new ProxyAgent({
        uri,
        ...timeouts,
        // http:// targets as absolute-form requests (what every forward proxy accepts); https:// through CONNECT.
        proxyTunnel: false,
        // TLS to the target inside the tunnel: the target's extra CAs and client certificate.
        requestTls: { timeout, ...targetTls },
        // TLS to an https:// proxy: the same extra CAs (a company proxy's certificate is usually signed by the company CA).
        proxyTls: { timeout, ...proxyTls },
      });
      proxies.set(uri, agent);
    }
    return agent;
  };
  const all = (): Dispatcher[] => [direct, ...proxies.values()];

  class NetworkRouter extends Base {
    proxyFor(url: URL): string | undefined {
      return proxyFor(settings, url);
    }

    override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
      const proxy = proxyFor(settings, new URL(String(opts.origin)));
      return (proxy === undefined ? direct : viaProxy(proxy)).dispatch(opts, handler);
    }

    override close(): Promise<void>;
    override close(callback: () => void): void;
    override close(callback?: () => void): Promise<void> | void {
      const done = Promise.all(all().map((d) => d.close())).then(() => {});
      if (!callback) return done;
      void done.then(callback, callback);
    }

    override destroy(): Promise<void>;
    override destroy(err: Error | null): Promise<void>;
    override destroy(callback: () => void): void;
    override destroy(err: Error | null, callback: () => void): void;
    override destroy(a?: Error | null | (() => void), b?: () => void): Promise<void> | void {
      const callback = typeof a === 'function' ? a : b;
      const err = typeof a === 'function' ? null : (a ?? null);
      const done = Promise.all(all().map((d) => d.destroy(err))).then(() => {});
      if (!callback) return done;
      void done.then(callback, callback);
    }
  }
  return new NetworkRouter();
}
