/**
 * The cluster's answer to an artifact cache's miss: the replica that takes the artifact's fetch lease
 * fetches, every other one streams from it, and a waiter whose leader does not answer waits for its lease
 * to lapse and looks again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { SharedFetch, SharedMiss } from '@hub/runtime';
import type { FetchLeases } from './fetch-leases.js';
import type { PeerAnswer, PeerClient } from './peer-stream.js';

export function createSharedFetch(o: { leases: FetchLeases; peers: PeerClient; log: Logger }): SharedFetch {
  return {
    async miss(registry, key): Promise<SharedMiss> {
      let lease;
      try {
        lease = await o.leases.acquire(registry, key);
      } catch (e) {
        // Without the database there is no telling who fetches: fetch here rather than not at all.
        o.log.warn({ registry, key, err: (e as Error).message }, 'fetch lease not taken; fetching without one');
        return { kind: 'fetch', done: () => {} };
      }
      if (lease.held) return { kind: 'fetch', done: lease.release };
      const answer: PeerAnswer = lease.peerUrl
        ? await o.peers.fetch(lease.peerUrl, registry, key)
        : { kind: 'unreachable', reason: 'no internal_url' };
      if (answer.kind === 'stream' || answer.kind === 'error') return answer;
      if (answer.kind === 'unreachable') {
        o.log.warn(
          { registry, key, peer: lease.peerUrl, reason: answer.reason },
          'the replica fetching this artifact does not answer; waiting for its lease to lapse',
        );
        await sleep(Math.min(1000, Math.max(50, lease.expiresAt - Date.now() + 50)));
      }
      return { kind: 'look-again' };
    },
  };
}
