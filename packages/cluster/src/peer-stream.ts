/**
 * Replicas stream an artifact one of them is fetching to the others: the owner of a fetch lease answers
 * `GET /_hub/peer/artifact?registry=&key=` from its spool while the upstream body lands, so a waiter on another
 * replica gets its first byte about when the owner does. Peers prove themselves with a secret kept in the
 * shared database (whoever reads that database owns the hub anyway); the route serves nothing else.
 */
import type { Readable } from 'node:stream';
import { Agent } from 'undici';
import {
  ERROR_CODES,
  errors,
  HubError,
  sameSecret,
  type PeerServe,
  type PluginContext,
  type SharedMiss,
} from '@hub/runtime';

export const PEER_ROUTE = '/_hub/peer/artifact';
/** The `settings` row of the secret peers prove themselves with (kept there since before the plugin, so old and new replicas agree). */
export const SECRET_SETTING = 'peer_secret';
/** The answer's marker when the owner has no such fetch (it finished, failed, or never started here). */
const NO_FLIGHT = 'x-hub-peer-no-flight';

export type PeerAnswer =
  /** The owner's bytes as they land, or its own failure (an upstream 404, say): the waiter's answer as is. */
  | Extract<SharedMiss, { kind: 'stream' | 'error' }>
  /** The owner has no such fetch: it finished (the row is written) or failed. */
  | { kind: 'none' }
  | { kind: 'unreachable'; reason: string };

/** The waiter's side: asks the replica holding the lease for the bytes it is fetching. */
export interface PeerClient {
  fetch(peerUrl: string, registry: string, key: string): Promise<PeerAnswer>;
  close(): Promise<void>;
}

/** The owner's side: `serve` joins a running fetch, or answers null when there is none. */
export function mountPeerRoute(router: PluginContext['router'], secret: string, serve: PeerServe): void {
  router.get(PEER_ROUTE, async (ctx) => {
    if (!sameSecret(ctx.get('authorization'), `Bearer ${secret}`))
      throw errors.unauthenticated('peer requests need the peer secret');
    const registry = ctx.query['registry'];
    const key = ctx.query['key'];
    if (typeof registry !== 'string' || typeof key !== 'string')
      throw errors.badRequest('registry and key are required');
    const reply = await serve(registry, key);
    if (!reply)
      throw new HubError('not_found', 'no fetch of that artifact is running here', { headers: { [NO_FLIGHT]: '1' } });
    ctx.status = reply.status;
    ctx.set(reply.headers);
    const body = reply.body as Readable;
    // A fetch that fails mid-way must reach the peer as a cut connection, never as a clean end.
    body.once('error', () => ctx.res.destroy());
    ctx.res.once('close', () => body.destroy());
    ctx.body = body;
  });
}

/** The waiter's side. */
export function createPeerClient(secret: string, o: { ca?: string | Buffer } = {}): PeerClient {
  // Peers are on the operator's own network: short connect timeout, the same idle timeout as an upstream. An
  // https peer's certificate is checked against `ca` ([server] internal_ca_file) when given, else the system's CAs.
  const agent = new Agent({
    connect: { timeout: 2_000, ...(o.ca ? { ca: o.ca } : {}) },
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  return {
    async fetch(peerUrl: string, registry: string, key: string): Promise<PeerAnswer> {
      const url = new URL(PEER_ROUTE, peerUrl);
      url.search = new URLSearchParams({ registry, key }).toString();
      let res;
      try {
        res = await agent.request({
          origin: url.origin,
          path: url.pathname + url.search,
          method: 'GET',
          headers: { authorization: `Bearer ${secret}` },
        });
      } catch (e) {
        return { kind: 'unreachable', reason: (e as { code?: string }).code ?? (e as Error).message };
      }
      if (res.statusCode === 200) {
        const length = Number(res.headers['content-length']);
        return {
          kind: 'stream',
          contentType: String(res.headers['content-type'] ?? 'application/octet-stream'),
          ...(Number.isSafeInteger(length) ? { size: length } : {}),
          body: res.body,
        };
      }
      if (res.headers[NO_FLIGHT]) {
        await res.body.dump();
        return { kind: 'none' };
      }
      const answer = (await res.body.json().catch(() => null)) as {
        error?: { code?: string; message?: string };
      } | null;
      const code = answer?.error?.code;
      const message = answer?.error?.message ?? `the replica fetching it answered ${res.statusCode}`;
      // The owner's own refusal or upstream failure is this waiter's answer too; anything else (a 503 while it
      // drains, a proxy's error page) says only that the owner cannot help.
      if (code !== undefined && code in ERROR_CODES && (res.statusCode < 500 || code.startsWith('upstream_')))
        return { kind: 'error', error: new HubError(code as keyof typeof ERROR_CODES, message) };
      return { kind: 'unreachable', reason: `status ${res.statusCode}` };
    },
    close: () => agent.close(),
  };
}
