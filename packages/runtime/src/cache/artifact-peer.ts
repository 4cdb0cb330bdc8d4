import fsp from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ArtifactSpec, RegistryInfo, UpstreamClient } from '@hub/contract';
import type { SharedFetch, SharedMiss } from '../contract/cluster.js';
import { type CacheState, type InFlight, LOOK_AGAIN, track } from './artifact-cache-state.js';
import type { MissPath } from './artifact-miss.js';
import { Flight } from './flight.js';

/** Replicas sharing a database: one of them fetches an artifact, the others stream it from that one. */
export function createPeerPath(s: CacheState, miss: MissPath) {
  const { o } = s;

  /** Tails another replica's fetch into a local spool for this replica's waiters; the owner stores it. */
  function followPeer(
    reg: RegistryInfo,
    spec: ArtifactSpec,
    answer: Extract<SharedMiss, { kind: 'stream' }>,
  ): InFlight {
    const flight = new Flight({ tmpDir: o.blobs.tmpDir, body: answer.body, expectedSize: answer.size });
    const stored = flight.finished.then(async (f) => {
      await fsp.rm(f.tmpPath, { force: true });
      // The owner writes the row right after its last byte verified.
      for (let i = 0; i < 100; i++) {
        const row = await o.rows.find(reg.name, spec.key);
        if (row) return row;
        await sleep(50);
      }
      throw new Error('the replica that fetched it wrote no row');
    });
    track(
      s,
      stored.catch((e: Error) =>
        o.log.warn({ registry: reg.name, key: spec.key, err: e.message }, 'stream from the fetching replica failed'),
      ),
    );
    return { flight, stored, contentType: answer.contentType, size: answer.size, fromPeer: true };
  }

  /**
   * A miss on a replica that shares its database: the cluster says whether this replica fetches or streams
   * from the one that does. Throws LOOK_AGAIN when the caller should look for the row again.
   */
  return async function startShared(
    reg: RegistryInfo,
    spec: ArtifactSpec,
    upstream: UpstreamClient,
    cluster: SharedFetch,
  ): Promise<InFlight> {
    const answer = await cluster.miss(reg.name, spec.key);
    if (answer.kind === 'stream') return followPeer(reg, spec, answer);
    if (answer.kind === 'error') throw answer.error;
    if (answer.kind === 'look-again') throw LOOK_AGAIN;
    const entry = await miss.startFlight(reg, spec, upstream).catch((e: unknown) => {
      answer.done();
      throw e;
    });
    void entry.stored.catch(() => {}).finally(answer.done);
    return entry;
  };
}
