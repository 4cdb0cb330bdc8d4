import { type ArtifactSpec, errors, type RegistryInfo, type Reply, type UpstreamClient } from '@hub/contract';
import {
  artifactId,
  type ArtifactCacheOptions,
  createCacheState,
  described,
  type FlightSlot,
  type InFlight,
  LOOK_AGAIN,
  type RequestHeaders,
} from './artifact-cache-state.js';
import { createHitPath } from './artifact-hit.js';
import { createMissPath } from './artifact-miss.js';
import { createPeerPath } from './artifact-peer.js';
import { createRemoval } from './artifact-remove.js';
import { createReadVerification } from './artifact-verify.js';

export type { ArtifactCacheOptions, RequestHeaders } from './artifact-cache-state.js';

const MAX_LOOKS = 40;
const LOCAL_ROW_MEMO_MS = 1000;

/**
 * The pull-through artifact cache. A hit streams the blob (or serves it from memory when small and
 * hot); a miss starts one Flight per (registry, key) that every concurrent waiter shares. Its parts, in the
 * order a request meets them: artifact-hit (and artifact-verify), artifact-miss, artifact-peer, artifact-remove.
 */
export function createArtifactCache(o: ArtifactCacheOptions) {
  const s = createCacheState(o);
  const { flights, rowMemo, touched } = s;
  const removal = createRemoval(s);
  const serveRow = createHitPath(s, createReadVerification(s, removal));
  const miss = createMissPath(s, removal);
  const startShared = createPeerPath(s, miss);

  function markTouched(registry: string, key: string) {
    let set = touched.get(registry);
    if (!set) touched.set(registry, (set = new Set()));
    set.add(key);
  }

  /** The fetch for `id`, started when none is under way (registered before any await, so every concurrent miss joins it). */
  function flightFor(
    id: string,
    reg: RegistryInfo,
    spec: ArtifactSpec,
    upstream: UpstreamClient,
  ): { slot: FlightSlot; coalesced: boolean } {
    let slot = flights.get(id);
    // A failed flight may linger for a tick while it cleans up; never join it.
    if (slot?.entry?.flight.state === 'failed') slot = undefined;
    if (slot) return { slot, coalesced: true };
    const { cluster } = o;
    const started: FlightSlot = {
      promise: cluster ? startShared(reg, spec, upstream, cluster) : miss.startFlight(reg, spec, upstream),
    };
    flights.set(id, started);
    const done = () => flights.get(id) === started && flights.delete(id);
    started.promise.then((e) => {
      started.entry = e;
      e.stored
        .then(
          (row) => rowMemo.set(id, row),
          () => {},
        )
        .finally(done);
    }, done);
    return { slot: started, coalesced: false };
  }

  return {
    /**
     * `headers`: the request's, for Range on a hit (a miss streams the whole artifact as it arrives).
     * `mayFetch`: asked only on a miss, whether the upstream may serve this artifact at all (a hybrid
     * registry's name published here may not); a hit never pays for it.
     */
    async serve(
      reg: RegistryInfo,
      spec: ArtifactSpec,
      upstream: UpstreamClient,
      method: 'GET' | 'HEAD' = 'GET',
      headers: RequestHeaders = {},
      mayFetch: () => Promise<boolean> = async () => reg.mode !== 'local',
    ): Promise<Reply> {
      const id = artifactId(reg.name, spec.key);
      for (let look = 1; ; look++) {
        const memo = rowMemo.get(id);
        const row = memo ?? (await o.rows.find(reg.name, spec.key));
        if (row) {
          const served = await serveRow(reg.name, row, headers);
          if (served) {
            // A published file can be deleted (unpublish) on any replica: remember it as briefly as a block,
            // counted from the read (a hit must not extend it).
            if (!memo) rowMemo.set(id, row, row.origin === 'local' ? { ttl: LOCAL_ROW_MEMO_MS } : undefined);
            markTouched(reg.name, spec.key);
            o.metrics.cache.inc({ registry: reg.name, result: 'hit' });
            return served;
          }
          // The row points at a blob that is gone: forget it and fetch again.
          rowMemo.delete(id);
          await o.rows.remove(reg.name, spec.key);
        }
        if (!(await mayFetch()))
          throw errors.notFound(`${described(spec)} was never published to ${reg.mode} registry ${reg.name}`);
        if (method === 'HEAD' && !flights.has(id)) return miss.headUncached(reg, spec, upstream);

        const { slot, coalesced } = flightFor(id, reg, spec, upstream);
        let entry: InFlight;
        try {
          entry = await slot.promise;
        } catch (e) {
          if (e === LOOK_AGAIN && look < MAX_LOOKS) continue;
          if (e === LOOK_AGAIN)
            throw errors.unavailable(`another replica is fetching ${described(spec)} and does not answer; try again`);
          throw e;
        }
        o.metrics.cache.inc({ registry: reg.name, result: entry.fromPeer ? 'peer' : coalesced ? 'coalesced' : 'miss' });
        return miss.joinFlight(entry, coalesced);
      }
    },
    /**
     * Another replica's waiters, through the peer route: the fetch this replica leads for that key, or null
     * when there is none (finished, failed, or led elsewhere).
     */
    async peerServe(registry: string, key: string): Promise<Reply | null> {
      const slot = flights.get(artifactId(registry, key));
      const entry = await slot?.promise.catch((e: unknown) => {
        if (e === LOOK_AGAIN) return undefined;
        throw e;
      });
      if (!entry || entry.fromPeer) return null;
      return miss.joinFlight(entry, true);
    },
    purge: removal.purge,
    reclaim: removal.reclaim,
    forget: removal.forget,
    /** Resolves once every fetch under way has been stored or discarded (its spool file removed). */
    async idle() {
      while (s.pending.size > 0) await Promise.all(s.pending);
    },
    async flushTouches() {
      const now = Date.now();
      for (const [registry, keys] of touched) {
        touched.delete(registry);
        await o.rows
          .touch(registry, [...keys], now)
          .catch((e: Error) => o.log.warn({ err: e.message }, 'could not record artifact access times'));
      }
    },
  };
}

export type ArtifactCache = ReturnType<typeof createArtifactCache>;
