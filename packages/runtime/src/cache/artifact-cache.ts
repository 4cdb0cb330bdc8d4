import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { LRUCache } from 'lru-cache';
import { boundedLru } from './bounded-lru.js';
import type { Logger } from 'pino';
import { type ArtifactSource, type ArtifactSpec, errors, headLooksLike, isHubError, partialHeaders, type RegistryInfo, type Reply, requestedRange, structuralVerifier, unsatisfiableHeaders, type UpstreamClient, type UpstreamResponse } from '@hub/contract';
import type { SharedFetch, SharedMiss } from '../contract/cluster.js';
import type { HubMetrics } from '../metrics.js';
import type { BlobStore } from '../storage/blobs/blob-store.js';
import type { artifactRows, ArtifactRow } from '../storage/artifact-rows.js';
import { Flight, FlightError } from './flight.js';
import { gunzipIfGzip } from './decode-body.js';
import { gatedRead, verifiedRead } from './verified-read.js';
import { createVerifiedBlobs } from './verified-blobs.js';

const sha256Hex = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** An artifact's bytes never change. The route makes it `private` unless anyone may read it without a token. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

export interface ArtifactCacheOptions {
  blobs: BlobStore;
  rows: ReturnType<typeof artifactRows>;
  metrics: HubMetrics;
  log: Logger;
  /** Hot small artifacts kept in memory, by total bytes. */
  memoryBytes: number;
  memoryMaxObjectBytes: number;
  maxArtifactBytes: number;
  /** Hash every blob read from disk against its name (bit rot, tampering); on by default. */
  verifyReads: boolean;
  /** Replicas sharing a database: one upstream fetch per artifact among them (absent for a lone hub). */
  cluster?: SharedFetch;
  /** Told of each artifact fetched and stored (a registry's `max_bytes` watch); must not throw or block. */
  onStored?(row: ArtifactRow): void;
}

interface InFlight {
  flight: Flight;
  /** Resolves once the blob is promoted and its row written. */
  stored: Promise<ArtifactRow>;
  contentType: string;
  size?: number;
  /** Streamed from the replica that holds the fetch lease, not fetched here. */
  fromPeer?: boolean;
}

/** What of the request a cache hit answers besides the method: a Range (and its If-Range). */
export type RequestHeaders = Readonly<Record<string, string | undefined>>;

interface FlightSlot {
  promise: Promise<InFlight>;
  entry?: InFlight;
}

const NOT_ARTIFACT_TYPES = /^text\/html\b/i;
/** A shared fetch ended without this replica getting the bytes (the owner finished, failed or died): look again. */
const LOOK_AGAIN = Symbol('look again');
const MAX_LOOKS = 40;
const LOCAL_ROW_MEMO_MS = 1000;

/**
 * The pull-through artifact cache. A hit streams the blob (or serves it from memory when small and
 * hot); a miss starts one Flight per (registry, key) that every concurrent waiter shares.
 */
export function createArtifactCache(o: ArtifactCacheOptions) {
  const flights = new Map<string, FlightSlot>();
  // Rows are immutable once written (content-addressed), so remembering them is safe; a purge drops them.
  const rowMemo = boundedLru<string, ArtifactRow>(50_000);
  const hot = new LRUCache<string, Buffer>({ maxSize: Math.max(1, o.memoryBytes), sizeCalculation: (b) => b.length || 1 });
  const touched = new Map<string, Set<string>>();
  // Blob files hashed whole by this process and unchanged since (decision 0030): streamed without hashing again.
  const verified = createVerifiedBlobs();
  // Fetches still spooling, verifying or promoting; close() waits for them so nothing is cut mid-write.
  const pending = new Set<Promise<unknown>>();

  // A hit's headers, built once per remembered row (rows are immutable; the object is frozen, so nothing edits it in place).
  const hitHeaders = new WeakMap<object, Reply['headers']>();
  const hitReply = (row: ArtifactRow, body: Reply['body']): Reply => {
    let headers = hitHeaders.get(row);
    if (!headers) {
      headers = Object.freeze({
        'content-type': row.content_type,
        'content-length': String(row.size),
        etag: `"${row.blob_sha256}"`,
        'cache-control': IMMUTABLE,
        'accept-ranges': 'bytes',
        'x-hub-cache': 'hit',
      });
      hitHeaders.set(row, headers);
    }
    return { status: 200, headers, body };
  };

  /** Every memo of a row: the row itself, its bytes in memory, and the trust in its blob file. */
  function forgetRow(registry: string, row: Pick<ArtifactRow, 'cache_key' | 'blob_sha256'>): void {
    rowMemo.delete(`${registry}\0${row.cache_key}`);
    hot.delete(row.blob_sha256);
    verified.forget(row.blob_sha256);
  }

  /** A blob that no longer matches its name: drop it and every memo of it, so the next request fetches again. */
  async function discardCorrupt(registry: string, row: ArtifactRow): Promise<void> {
    o.metrics.fetchFailures.inc({ registry, reason: 'corrupt_blob' });
    o.log.error({ registry, key: row.cache_key, blob: row.blob_sha256 }, 'cached blob is corrupt; discarded, the next request fetches it again');
    forgetRow(registry, row);
    await o.rows.remove(registry, row.cache_key);
    await o.blobs.delete(row.blob_sha256);
  }

  /** The cached file a failed digest came from: either it or the file is wrong, and only a refetch of both can tell. */
  async function dropSidecar(registry: string, key: string): Promise<void> {
    // The checksum may still be landing (it streamed to the kind before its row was written): wait for it.
    await flights.get(`${registry}\0${key}`)?.promise.then((e) => e.stored).catch(() => {});
    const row = await o.rows.find(registry, key);
    if (!row) return;
    await o.rows.remove(registry, key);
    await afterRowRemoved(registry, row);
    o.log.warn({ registry, key }, 'dropped a cached checksum that a download did not match; both are fetched again next time');
  }

  /** A removed row leaves the memos, and its blob leaves the store unless another row still names it. */
  async function afterRowRemoved(registry: string, row: Pick<ArtifactRow, 'cache_key' | 'blob_sha256'>): Promise<void> {
    forgetRow(registry, row);
    if (!(await o.rows.blobInUse(row.blob_sha256))) await o.blobs.delete(row.blob_sha256);
  }

  /**
   * A cached blob answers Range (clients resume downloads with it): one range gets 206, a range past
   * the end 416, anything else the whole blob. A range read from disk is not hashed (only a whole read
   * can be); the bytes were verified when they were stored.
   */
  async function serveRange(row: ArtifactRow, headers: RequestHeaders): Promise<Reply | null | undefined> {
    const range = requestedRange(headers, row.size, { etag: `"${row.blob_sha256}"` });
    if (range === null) return undefined;
    const whole = hitReply(row, null);
    if (range === 'unsatisfiable') return { status: 416, headers: { ...whole.headers, ...unsatisfiableHeaders(row.size) }, body: Buffer.alloc(0) };
    const mem = hot.get(row.blob_sha256);
    const body = mem ? mem.subarray(range.start, range.end + 1) : await o.blobs.get(row.blob_sha256, range);
    if (!body) return null;
    return { status: 206, headers: { ...whole.headers, ...partialHeaders(range, row.size) }, body };
  }

  async function serveRow(registry: string, row: ArtifactRow, headers: RequestHeaders): Promise<Reply | null> {
    // Without a Range header there is nothing to answer partially (requestedRange says null): no promise for it.
    if (headers.range !== undefined) {
      const ranged = await serveRange(row, headers);
      if (ranged !== undefined) return ranged;
    }
    const mem = hot.get(row.blob_sha256);
    if (mem) return hitReply(row, mem);
    if (row.size <= o.memoryMaxObjectBytes && o.memoryBytes > 0) {
      const buf = await o.blobs.readAll(row.blob_sha256);
      if (!buf || buf.length !== row.size) return null;
      // Checked once per load into memory; a corrupt copy is refetched for this very request.
      if (o.verifyReads && sha256Hex(buf) !== row.blob_sha256) {
        await discardCorrupt(registry, row);
        return null;
      }
      hot.set(row.blob_sha256, buf);
      return hitReply(row, buf);
    }
    const sha = row.blob_sha256;
    // A store that tells file identities (open, with hashOf to check one) is hashed once per file, any other on every read.
    if (o.blobs.open && o.blobs.hashOf) {
      const opened = await o.blobs.open(sha);
      if (!opened) return null;
      const { body, identity, changedAt } = opened;
      // Hashed whole once per process per file identity: a file written or replaced since is hashed again.
      if (!o.verifyReads || verified.trusts(sha, identity)) return hitReply(row, body);
      // One check of the file for every concurrent first read; each read's last chunk waits for its verdict.
      const verdict = verified.verify(sha, identity, changedAt, async () => {
        // null: the file is gone or is another file now (no verdict).
        const hex = await o.blobs.hashOf!(sha, identity);
        const ok = hex === null ? null : hex === sha;
        if (ok === false) await discardCorrupt(registry, row);
        return ok;
      });
      return hitReply(row, gatedRead(body, verdict, sha));
    }
    const stream = await o.blobs.get(sha);
    if (!stream) return null;
    return hitReply(row, o.verifyReads ? verifiedRead(stream, sha, () => discardCorrupt(registry, row)) : stream);
  }

  function markTouched(registry: string, key: string) {
    let set = touched.get(registry);
    if (!set) touched.set(registry, (set = new Set()));
    set.add(key);
  }

  function refuseTooNew(reg: RegistryInfo, spec: ArtifactSpec, source: ArtifactSource): void {
    const coolDown = reg.minReleaseAgeSecs ?? 0;
    if (coolDown > 0 && source.publishedAt && Date.now() - source.publishedAt.getTime() < coolDown * 1000) {
      const servedFrom = new Date(source.publishedAt.getTime() + coolDown * 1000).toISOString();
      throw errors.packageBlocked(`${spec.coordinate.name} ${spec.coordinate.version ?? ''} was published ${source.publishedAt.toISOString()}, within the registry's min_release_age_secs (${coolDown}); it is served from ${servedFrom}`);
    }
  }

  /** HEAD of an uncached artifact: the upstream's HEAD, nothing fetched or cached (a HEAD must not cost a download). */
  async function headUncached(reg: RegistryInfo, spec: ArtifactSpec, upstream: UpstreamClient): Promise<Reply> {
    const source = await spec.source();
    refuseTooNew(reg, spec, source);
    const res = await upstream.request(source.url, { method: 'HEAD', headers: source.headers });
    refuseUnlessOk(reg, spec, res);
    res.body.destroy();
    const headers: Record<string, string> = { 'content-type': contentTypeOf(spec, res), 'cache-control': IMMUTABLE, 'x-hub-cache': 'miss' };
    const length = source.size ?? (source.decode ? undefined : Number(res.headers['content-length']));
    if (length !== undefined && Number.isSafeInteger(length)) headers['content-length'] = String(length);
    // A stream, not null: null would make the answer a 204; the route sends a HEAD's headers and no body.
    return { status: 200, headers, body: Readable.from([]) };
  }

  /** An upstream answer other than 200 as the client's error (404 or the upstream's failure), its body discarded. */
  function refuseUnlessOk(reg: RegistryInfo, spec: ArtifactSpec, res: UpstreamResponse): void {
    if (res.status === 200) return;
    res.body.destroy();
    if (res.status === 404 || res.status === 410) throw errors.notFound(`${described(spec)} is not in the upstream of registry ${reg.name}`);
    throw errors.upstream(`upstream answered ${res.status} for ${described(spec)}`, { status: res.status, key: spec.key });
  }

  /** The upstream's media type when the artifact spec keeps it (OCI manifests), else the artifact spec's. */
  function contentTypeOf(spec: ArtifactSpec, res: UpstreamResponse): string {
    const upstreamType = res.headers['content-type']?.split(';')[0]!.trim().toLowerCase();
    return upstreamType && spec.upstreamContentTypes?.includes(upstreamType) ? upstreamType : spec.contentType;
  }

  /** A failed check or a failed body (a HubError from the upstream client), not a local error. */
  const mirrorsFault = (e: unknown): boolean => e instanceof FlightError || isHubError(e);

  /** Why a 200 is not the artifact before any byte is read (an HTML error page), or null. */
  function notTheArtifact(spec: ArtifactSpec, res: UpstreamResponse): string | null {
    const upstreamType = res.headers['content-type'];
    if (upstreamType && NOT_ARTIFACT_TYPES.test(upstreamType) && !NOT_ARTIFACT_TYPES.test(spec.contentType)) return `upstream sent an HTML page instead of ${described(spec)}`;
    return null;
  }

  /**
   * One fetch for every waiter. With upstream mirrors, an answer that fails before any byte reached a client
   * (an HTML page, a failed head check, a body cut short early) is dropped and the next mirror asked: waiters
   * only join a flight once it is ready, so they never see the failed one.
   */
  function startFlight(reg: RegistryInfo, spec: ArtifactSpec, upstream: UpstreamClient): Promise<InFlight> {
    return (async () => {
      const source = await spec.source();
      refuseTooNew(reg, spec, source);
      let res = await upstream.request(source.url, { headers: source.headers, maxBytes: o.maxArtifactBytes });
      for (;;) {
        const html = res.status === 200 ? notTheArtifact(spec, res) : null;
        if (html && res.tryNextMirror) {
          o.metrics.fetchFailures.inc({ registry: reg.name, reason: 'check' });
          res = await res.tryNextMirror(html);
          continue;
        }
        const entry = flightFrom(reg, spec, source, res);
        if (!res.tryNextMirror) return entry;
        const early = await entry.flight.ready.then(
          () => null,
          (e: unknown) => e,
        );
        // A local failure (the spool's disk) is no reason to leave the mirror.
        if (!early || !mirrorsFault(early)) return entry;
        res = await res.tryNextMirror((early as Error).message);
      }
    })();
  }

  function flightFrom(reg: RegistryInfo, spec: ArtifactSpec, source: ArtifactSource, res: UpstreamResponse): InFlight {
    refuseUnlessOk(reg, spec, res);
    const html = notTheArtifact(spec, res);
    if (html) {
      res.body.destroy();
      res.reportBad?.(html);
      o.metrics.fetchFailures.inc({ registry: reg.name, reason: 'check' });
      throw errors.upstream(html);
    }
    const contentType = contentTypeOf(spec, res);
    const cl = res.headers['content-length'];
    const decoding = source.decode === 'gzip';
    // A Content-Length counts the encoded bytes; only a declared size describes what is decoded.
    const expectedSize = source.size ?? (cl !== undefined && !decoding ? Number(cl) : undefined);
    const format = spec.format;
    const verifier = format ? structuralVerifier(format) : undefined;
    const sidecar = source.digest?.fromKey;
    const flight: Flight = new Flight({
      tmpDir: o.blobs.tmpDir,
      body: decoding ? gunzipIfGzip(res.body, o.maxArtifactBytes) : res.body,
      expectedSize,
      digest: source.digest,
      checkHead: (head) => (format ? headLooksLike(format, head) : null) ?? spec.checkHead?.(head) ?? null,
      verify: verifier && ((): Promise<string | null> => verifier.finish(flight.tmpPath)),
      onChunk: (c) => {
        o.metrics.upstreamBytes.inc({ registry: reg.name }, c.length);
        return verifier?.update(c);
      },
      // The checksum a file failed is dropped before the client hears of it (a 502, a cut stream): a retry
      // right after fetches both again instead of meeting the same wrong checksum.
      onFailure: sidecar
        ? async (e) => {
            if (e instanceof FlightError && e.reason === 'digest')
              await dropSidecar(reg.name, sidecar).catch((err: Error) => o.log.warn({ registry: reg.name, key: sidecar, err: err.message }, 'could not drop the cached checksum'));
          }
        : undefined,
    });
    const stored = flight.finished.then(async (f) => {
      await o.blobs.promote(f.tmpPath, f.sha256, f.size);
      const row: ArtifactRow = {
        registry: reg.name,
        cache_key: spec.key,
        package_name: spec.coordinate.name,
        version: spec.coordinate.version ?? null,
        blob_sha256: f.sha256,
        size: f.size,
        content_type: contentType,
        // The URL hub asked, never a redirect target: those carry short-lived signatures.
        upstream_url: source.url,
        origin: 'upstream',
        fetched_at: Date.now(),
      };
      await o.rows.insert(row);
      o.onStored?.(row);
      return row;
    });
    // Settled once the row is written or the failure handled (idle() waits for this).
    const settled = stored.then(
      () => {},
      async (e: Error) => {
        const reason = e instanceof FlightError ? e.reason : 'upstream';
        // The bytes were wrong (not the disk or the database): the mirror that sent them answers for it.
        if (flight.state === 'failed' && mirrorsFault(e)) res.reportBad?.(e.message);
        o.metrics.fetchFailures.inc({ registry: reg.name, reason });
        o.log.warn({ registry: reg.name, key: spec.key, reason, err: e.message }, 'artifact not cached');
      },
    );
    track(settled);
    return { flight, stored, contentType, size: expectedSize };
  }

  function track(p: Promise<unknown>): void {
    pending.add(p);
    void p.finally(() => pending.delete(p));
  }

  /**
   * A miss on a replica that shares its database: the cluster says whether this replica fetches or streams
   * from the one that does. Throws LOOK_AGAIN when the caller should look for the row again.
   */
  async function startShared(reg: RegistryInfo, spec: ArtifactSpec, upstream: UpstreamClient, cluster: SharedFetch): Promise<InFlight> {
    const answer = await cluster.miss(reg.name, spec.key);
    if (answer.kind === 'stream') return followPeer(reg, spec, answer);
    if (answer.kind === 'error') throw answer.error;
    if (answer.kind === 'look-again') throw LOOK_AGAIN;
    const entry = await startFlight(reg, spec, upstream).catch((e: unknown) => {
      answer.done();
      throw e;
    });
    void entry.stored.catch(() => {}).finally(answer.done);
    return entry;
  }

  /** Tails another replica's fetch into a local spool for this replica's waiters; the owner stores it. */
  function followPeer(reg: RegistryInfo, spec: ArtifactSpec, answer: Extract<SharedMiss, { kind: 'stream' }>): InFlight {
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
    track(stored.catch((e: Error) => o.log.warn({ registry: reg.name, key: spec.key, err: e.message }, 'stream from the fetching replica failed')));
    return { flight, stored, contentType: answer.contentType, size: answer.size, fromPeer: true };
  }

  return {
    /** `headers`: the request's, for Range on a hit (a miss streams the whole artifact as it arrives). */
    /**
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
      const id = `${reg.name}\0${spec.key}`;
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
        if (!(await mayFetch())) throw errors.notFound(`${described(spec)} was never published to ${reg.mode} registry ${reg.name}`);
        if (method === 'HEAD' && !flights.has(id)) return headUncached(reg, spec, upstream);

        let slot = flights.get(id);
        // A failed flight may linger for a tick while it cleans up; never join it.
        if (slot?.entry?.flight.state === 'failed') slot = undefined;
        const coalesced = slot !== undefined;
        if (!slot) {
          // Registered before any await, so every concurrent miss joins this one fetch.
          const { cluster } = o;
          const s: FlightSlot = { promise: cluster ? startShared(reg, spec, upstream, cluster) : startFlight(reg, spec, upstream) };
          slot = s;
          flights.set(id, s);
          const done = () => flights.get(id) === s && flights.delete(id);
          s.promise.then((e) => {
            s.entry = e;
            e.stored.then((row) => rowMemo.set(id, row), () => {}).finally(done);
          }, done);
        }
        let entry: InFlight;
        try {
          entry = await slot.promise;
        } catch (e) {
          if (e === LOOK_AGAIN && look < MAX_LOOKS) continue;
          if (e === LOOK_AGAIN) throw errors.unavailable(`another replica is fetching ${described(spec)} and does not answer; try again`);
          throw e;
        }
        o.metrics.cache.inc({ registry: reg.name, result: entry.fromPeer ? 'peer' : coalesced ? 'coalesced' : 'miss' });
        return joinFlight(entry, coalesced);
      }
    },
    /**
     * Another replica's waiters, through the peer route: the fetch this replica leads for that key, or null
     * when there is none (finished, failed, or led elsewhere).
     */
    async peerServe(registry: string, key: string): Promise<Reply | null> {
      const slot = flights.get(`${registry}\0${key}`);
      const entry = await slot?.promise.catch((e: unknown) => {
        if (e === LOOK_AGAIN) return undefined;
        throw e;
      });
      if (!entry || entry.fromPeer) return null;
      return joinFlight(entry, true);
    },
    /**
     * Removes cached artifacts of a package (one version, or all): rows first, then blobs no other row
     * still names. Returns what was removed, for the audit log.
     */
    async purge(registry: string, packageName: string, version?: string): Promise<ArtifactRow[]> {
      const removed = await o.rows.removePackage(registry, packageName, version);
      for (const row of removed) await afterRowRemoved(registry, row);
      return removed;
    },
    /** Retention's removal of one row: gone from the database, the memos and (when no row shares it) the store. */
    async reclaim(registry: string, row: Pick<ArtifactRow, 'cache_key' | 'blob_sha256'>, notAccessedSince: number): Promise<boolean> {
      if (!(await o.rows.removeIdle(registry, row.cache_key, notAccessedSince))) return false;
      await afterRowRemoved(registry, row);
      return true;
    },
    /** A published file's row changed (unpublished, replaced): what this process remembers of it goes. */
    forget(registry: string, key: string) {
      const row = rowMemo.get(`${registry}\0${key}`);
      if (row) forgetRow(registry, row);
    },
    /** Resolves once every fetch under way has been stored or discarded (its spool file removed). */
    async idle() {
      while (pending.size > 0) await Promise.all(pending);
    },
    async flushTouches() {
      const now = Date.now();
      for (const [registry, keys] of touched) {
        touched.delete(registry);
        await o.rows.touch(registry, [...keys], now).catch((e: Error) => o.log.warn({ err: e.message }, 'could not record artifact access times'));
      }
    },
  };

  async function joinFlight(entry: InFlight, coalesced: boolean): Promise<Reply> {
    const { flight } = entry;
    await flight.ready.catch(async (e: unknown) => {
      await flight.failureHandled;
      throw isHubError(e) ? e : errors.upstream(e instanceof Error ? e.message : 'upstream failed');
    });
    const headers: Record<string, string> = { 'content-type': entry.contentType, 'cache-control': IMMUTABLE, 'x-hub-cache': entry.fromPeer ? 'peer' : coalesced ? 'coalesced' : 'miss' };
    if (entry.size !== undefined) headers['content-length'] = String(entry.size);
    if (flight.state === 'done') {
      // Too late to tail the spool file: it is being (or has been) promoted.
      const row = await entry.stored.catch(() => {
        throw errors.upstream('upstream body failed verification');
      });
      const body = await o.blobs.get(row.blob_sha256);
      if (!body) throw errors.internal('cached blob vanished');
      return { status: 200, headers: { ...headers, 'content-length': String(row.size) }, body };
    }
    if (flight.state === 'failed') {
      await flight.failureHandled;
      throw errors.upstream(flight.error?.message ?? 'upstream failed');
    }
    return { status: 200, headers, body: flight.reader() };
  }
}

export type ArtifactCache = ReturnType<typeof createArtifactCache>;

/** An artifact as a person knows it, for messages: its coordinate, never the cache key. */
const described = (spec: ArtifactSpec): string => (spec.coordinate.version === undefined ? spec.coordinate.name : `${spec.coordinate.name} ${spec.coordinate.version}`);
