/**
 * A configuration reload reaches every replica (decision 0057): the replica the admin API asked reloads
 * itself, then posts `POST /_hub/peer/config/reload` to each other live replica at the address its heartbeat
 * row advertises, with the peer secret. Each answers with its own result; one that cannot be reached is
 * reported `unreachable`, never waited for past the timeout.
 */
import { Agent } from 'undici';
import { errors, sameSecret, type AuditContext, type PluginContext, type ReplicaReload } from '@hub/runtime';

export const PEER_RELOAD_ROUTE = '/_hub/peer/config/reload';
/** Longest a peer's reload may take to answer (reading and validating a file, binding registries). */
const ANSWER_MS = 30_000;
/** The largest answer read from a peer. */
const MAX_ANSWER_BYTES = 64 * 1024;

export function mountPeerReload(
  router: PluginContext['router'],
  secret: string,
  reload: (o: { by: string | null; audit?: AuditContext }) => Promise<ReplicaReload>,
): void {
  router.post(PEER_RELOAD_ROUTE, async (ctx) => {
    if (!sameSecret(ctx.get('authorization'), `Bearer ${secret}`))
      throw errors.unauthenticated('peer requests need the peer secret');
    // Who asked, as the replica that took the admin call says (its own audit row has the caller's token).
    const by = ctx.get('x-hub-reload-by').slice(0, 128) || null;
    const audit: AuditContext = { action: 'config_reload', user_id: by };
    ctx.state.audit = audit;
    ctx.body = await reload({ by, audit });
  });
}

export interface PeerReloader {
  reloadAll(
    peers: ReadonlyArray<{ id: string; internal_url: string | null }>,
    by: string | null,
  ): Promise<ReplicaReload[]>;
  close(): Promise<void>;
}

export function createPeerReloader(secret: string, o: { ca?: string | Buffer } = {}): PeerReloader {
  const agent = new Agent({
    connect: { timeout: 2_000, ...(o.ca ? { ca: o.ca } : {}) },
    headersTimeout: ANSWER_MS,
    bodyTimeout: ANSWER_MS,
  });
  async function one(peer: { id: string; internal_url: string | null }, by: string | null): Promise<ReplicaReload> {
    const unreachable = (error: string): ReplicaReload => ({
      id: peer.id,
      result: 'unreachable',
      changed_keys: [],
      error,
    });
    if (!peer.internal_url) return unreachable('it has not advertised an address yet');
    try {
      const url = new URL(PEER_RELOAD_ROUTE, peer.internal_url);
      const res = await agent.request({
        origin: url.origin,
        path: url.pathname,
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, ...(by ? { 'x-hub-reload-by': by } : {}) },
      });
      const text = await readCapped(res.body);
      if (res.statusCode !== 200) return unreachable(`it answered ${res.statusCode}`);
      const answer = JSON.parse(text) as Partial<ReplicaReload>;
      if (answer.result !== 'applied' && answer.result !== 'refused')
        return unreachable('it answered something other than a reload result');
      return {
        id: typeof answer.id === 'string' ? answer.id : peer.id,
        result: answer.result,
        changed_keys: Array.isArray(answer.changed_keys)
          ? answer.changed_keys.filter((k): k is string => typeof k === 'string')
          : [],
        error: typeof answer.error === 'string' ? answer.error : null,
      };
    } catch (e) {
      return unreachable((e as { code?: string }).code ?? (e as Error).message);
    }
  }
  return {
    reloadAll: (peers, by) => Promise.all(peers.map((p) => one(p, by))),
    close: () => agent.close(),
  };
}

async function readCapped(body: AsyncIterable<Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of body) {
    n += c.length;
    if (n > MAX_ANSWER_BYTES) throw new Error('its answer is too large');
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}
