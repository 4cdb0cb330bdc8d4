import fs from 'node:fs';
import os from 'node:os';
import type { Cluster, ClusterProvider } from '@hub/runtime';
import { createFetchLeases } from './fetch-leases.js';
import { startHeartbeat } from './heartbeat.js';
import { createSharedFetch } from './shared-fetch.js';

/** One hub's membership of the replicas on its database: its heartbeat, and on MySQL the shared fetches. */
export async function joinCluster({
  db,
  config,
  log,
  sharedSecret,
}: Parameters<ClusterProvider['create']>[0]): Promise<Cluster> {
  const heartbeat = await startHeartbeat(db, { rateStore: config.limits.rate_store, log });
  // Only a MySQL database is shared between processes (a SQLite file has one hub): there, replicas share fetches.
  const peerStream = config.database.client === 'mysql' ? await import('./peer-stream.js') : undefined;
  const secret = peerStream ? await sharedSecret(peerStream.SECRET_SETTING) : undefined;
  const ca = config.server.internal_ca_file === undefined ? undefined : fs.readFileSync(config.server.internal_ca_file);
  const peers = peerStream && secret ? peerStream.createPeerClient(secret, { ca }) : undefined;
  // Reloads reach the other replicas the way shared fetches do: at their advertised address, with the peer secret.
  const reloads = secret ? await import('./peer-reload.js') : undefined;
  const peerReloader = reloads && secret ? reloads.createPeerReloader(secret, { ca }) : undefined;
  const sharedFetch =
    peers &&
    createSharedFetch({
      leases: createFetchLeases(db, { replicaId: heartbeat.id, leaseMs: config.cache.fetch_lease_secs * 1000 }),
      peers,
      log,
    });
  return {
    sharedFetch,
    mountPeerRoute(router, serve) {
      if (peerStream && secret) peerStream.mountPeerRoute(router, secret, serve);
    },
    replicaId: heartbeat.id,
    mountPeerReload(router, reload) {
      if (reloads && secret) reloads.mountPeerReload(router, secret, reload);
    },
    async reloadPeers(by) {
      if (!peerReloader) return [];
      let peers;
      try {
        peers = await heartbeat.peers();
      } catch (e) {
        // Without the replica list nobody else can be asked: say so rather than report no other replica.
        return [
          {
            id: 'other replicas',
            result: 'unreachable',
            changed_keys: [],
            error: `the replica list could not be read: ${(e as Error).message}`,
          },
        ];
      }
      return peerReloader.reloadAll(peers, by);
    },
    async advertise(listenUrl) {
      if (!sharedFetch) return;
      const url = config.server.internal_url ?? reachableFromPeers(listenUrl);
      // The peer secret and the artifacts travel in this URL's requests: in clear over http (see docs/operations.md).
      if (url.startsWith('http:') && !isLoopback(new URL(url).hostname))
        log.warn(
          { internal_url: url },
          'replicas stream artifacts to each other, with the peer secret, over plain http: keep them on a private network or use an https internal_url',
        );
      await heartbeat.advertise(url);
    },
    health: heartbeat.health,
    async stop() {
      await peers?.close();
      await peerReloader?.close();
      await heartbeat.stop().catch((e: Error) => log.warn({ err: e.message }, 'heartbeat row not removed; it expires'));
    },
  };
}

/** The listener's URL as other machines reach it: an unspecified address becomes this machine's name. */
function reachableFromPeers(listenUrl: string): string {
  const u = new URL(listenUrl);
  if (u.hostname === '0.0.0.0' || u.hostname === '[::]') u.hostname = os.hostname();
  return u.origin;
}

const isLoopback = (host: string): boolean => host === 'localhost' || host === '[::1]' || /^127\./.test(host);
