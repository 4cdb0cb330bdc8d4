import { errors, readCapped, VERSION, type UpstreamClient } from '@hub/runtime';
import { createUpstreamClient } from '@hub/upstream';

/** Discovery documents and key sets are small: anything larger is not one. */
const MAX_DOCUMENT_BYTES = 1024 * 1024;
const DEADLINE_MS = 10_000;

/**
 * Reads an identity provider's documents (discovery, JWKS) and calls its token endpoint. The issuer is trusted
 * configuration, reachable on private networks like a configured upstream; every URL it names must stay on
 * the configured origins (the issuer's own, and an explicitly configured `jwks_url`'s): no redirects, and the
 * address policy (`[server] forbidden_networks`) for anything else.
 */
export interface IssuerClient {
  /** GET a JSON document; refuses a URL outside the trusted origins. */
  getJson(url: string): Promise<unknown>;
  /** POST a form (the token and device endpoints); resolves with the status and the JSON body. */
  postForm(
    url: string,
    form: Record<string, string>,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

export interface IssuerClientOptions {
  /** The configured issuer URL. */
  issuer: string;
  /** Other configured URLs whose origin is trusted too (a workload entry's `jwks_url`). */
  alsoTrusted?: readonly string[];
  forbiddenNetworks: readonly string[];
}

export function createIssuerClient(o: IssuerClientOptions): IssuerClient {
  const origins = new Set([new URL(o.issuer).origin, ...(o.alsoTrusted ?? []).map((u) => new URL(u).origin)]);
  const client: UpstreamClient = createUpstreamClient({
    origin: o.issuer,
    trustedOrigins: [...origins],
    forbiddenNetworks: o.forbiddenNetworks,
    userAgent: `hub/${VERSION}`,
    maxRedirects: 0,
    retries: 1,
    maxBytes: MAX_DOCUMENT_BYTES,
    deadlineMs: DEADLINE_MS,
  });
  const checkOrigin = (url: string): void => {
    if (!URL.canParse(url) || !origins.has(new URL(url).origin))
      throw errors.upstream('the identity provider named a URL outside its own origin', {
        url: URL.canParse(url) ? new URL(url).origin : '<invalid>',
      });
  };
  const parse = (bytes: Buffer, url: string): unknown => {
    try {
      return JSON.parse(bytes.toString('utf8')) as unknown;
    } catch {
      throw errors.upstream('the identity provider answered something that is not JSON', { url });
    }
  };
  return {
    async getJson(url) {
      checkOrigin(url);
      const res = await client.request(url, { headers: { accept: 'application/json' } });
      if (res.status !== 200) {
        res.body.resume();
        throw errors.upstream(`the identity provider answered ${res.status}`, { url });
      }
      return parse(await readCapped(res.body, MAX_DOCUMENT_BYTES), url);
    },
    async postForm(url, form, headers = {}) {
      checkOrigin(url);
      // The upstream client speaks GET and HEAD only (registries are read); the token endpoint needs one POST.
      const { request } = await import('undici');
      const res = await request(url, {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
          'user-agent': `hub/${VERSION}`,
        },
        body: new URLSearchParams(form).toString(),
        headersTimeout: DEADLINE_MS,
        bodyTimeout: DEADLINE_MS,
        signal: AbortSignal.timeout(DEADLINE_MS),
      });
      const bytes = await readCapped(res.body, MAX_DOCUMENT_BYTES);
      let body: unknown = null;
      try {
        body = JSON.parse(bytes.toString('utf8'));
      } catch {
        body = null;
      }
      return { status: res.statusCode, body };
    },
    close: () => client.close(),
  };
}

/** client_secret_basic when the client has a secret (RFC 6749 2.3.1). */
export function clientAuth(c: { client_id: string; client_secret?: string }): Record<string, string> {
  if (c.client_secret === undefined) return {};
  const enc = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
  return { authorization: `Basic ${Buffer.from(`${enc(c.client_id)}:${enc(c.client_secret)}`).toString('base64')}` };
}
