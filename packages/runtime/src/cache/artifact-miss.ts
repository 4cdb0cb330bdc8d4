import { Readable } from 'node:stream';
import {
  type ArtifactSource,
  type ArtifactSpec,
  errors,
  headLooksLike,
  isHubError,
  type RegistryInfo,
  type Reply,
  structuralVerifier,
  type UpstreamClient,
  type UpstreamResponse,
} from '@hub/contract';
import type { ArtifactRow } from '../storage/artifact-rows.js';
import { described, IMMUTABLE, type CacheState, type InFlight, track } from './artifact-cache-state.js';
import type { Removal } from './artifact-remove.js';
import { gunzipIfGzip } from './decode-body.js';
import { Flight, FlightError } from './flight.js';

const NOT_ARTIFACT_TYPES = /^text\/html\b/i;

/** A failed check or a failed body (a HubError from the upstream client), not a local error. */
const mirrorsFault = (e: unknown): boolean => e instanceof FlightError || isHubError(e);

/** An upstream answer other than 200 as the client's error (404 or the upstream's failure), its body discarded. */
function refuseUnlessOk(reg: RegistryInfo, spec: ArtifactSpec, res: UpstreamResponse): void {
  if (res.status === 200) return;
  res.body.destroy();
  if (res.status === 404 || res.status === 410)
    throw errors.notFound(`${described(spec)} is not in the upstream of registry ${reg.name}`);
  throw errors.upstream(`upstream answered ${res.status} for ${described(spec)}`, {
    status: res.status,
    key: spec.key,
  });
}

/** The upstream's media type when the artifact spec keeps it (OCI manifests), else the artifact spec's. */
function contentTypeOf(spec: ArtifactSpec, res: UpstreamResponse): string {
  const upstreamType = res.headers['content-type']?.split(';')[0]!.trim().toLowerCase();
  return upstreamType && spec.upstreamContentTypes?.includes(upstreamType) ? upstreamType : spec.contentType;
}

/** Why a 200 is not the artifact before any byte is read (an HTML error page), or null. */
function notTheArtifact(spec: ArtifactSpec, res: UpstreamResponse): string | null {
  const upstreamType = res.headers['content-type'];
  if (upstreamType && NOT_ARTIFACT_TYPES.test(upstreamType) && !NOT_ARTIFACT_TYPES.test(spec.contentType))
    return `upstream sent an HTML page instead of ${described(spec)}`;
  return null;
}

function refuseTooNew(reg: RegistryInfo, spec: ArtifactSpec, source: ArtifactSource): void {
  const coolDown = reg.minReleaseAgeSecs ?? 0;
  if (coolDown > 0 && source.publishedAt && Date.now() - source.publishedAt.getTime() < coolDown * 1000) {
    const servedFrom = new Date(source.publishedAt.getTime() + coolDown * 1000).toISOString();
    throw errors.packageBlocked(
      `${spec.coordinate.name} ${spec.coordinate.version ?? ''} was published ${source.publishedAt.toISOString()}, within the registry's min_release_age_secs (${coolDown}); it is served from ${servedFrom}`,
    );
  }
}

/**
 * A cache miss: one upstream fetch (a Flight) spooled, checked as it arrives and stored once verified, that
 * every waiter streams from while the bytes arrive; a HEAD asks the upstream's HEAD and fetches nothing.
 */
export function createMissPath(s: CacheState, removal: Removal) {
  const { o } = s;

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
              await removal
                .dropSidecar(reg.name, sidecar)
                .catch((err: Error) =>
                  o.log.warn(
                    { registry: reg.name, key: sidecar, err: err.message },
                    'could not drop the cached checksum',
                  ),
                );
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
    track(s, settled);
    return { flight, stored, contentType, size: expectedSize };
  }

  return {
    /**
     * One fetch for every waiter. With upstream mirrors, an answer that fails before any byte reached a client
     * (an HTML page, a failed head check, a body cut short early) is dropped and the next mirror asked: waiters
     * only join a flight once it is ready, so they never see the failed one.
     */
    async startFlight(reg: RegistryInfo, spec: ArtifactSpec, upstream: UpstreamClient): Promise<InFlight> {
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
    },

    /** HEAD of an uncached artifact: the upstream's HEAD, nothing fetched or cached (a HEAD must not cost a download). */
    async headUncached(reg: RegistryInfo, spec: ArtifactSpec, upstream: UpstreamClient): Promise<Reply> {
      const source = await spec.source();
      refuseTooNew(reg, spec, source);
      const res = await upstream.request(source.url, { method: 'HEAD', headers: source.headers });
      refuseUnlessOk(reg, spec, res);
      res.body.destroy();
      const headers: Record<string, string> = {
        'content-type': contentTypeOf(spec, res),
        'cache-control': IMMUTABLE,
        'x-hub-cache': 'miss',
      };
      const length = source.size ?? (source.decode ? undefined : Number(res.headers['content-length']));
      if (length !== undefined && Number.isSafeInteger(length)) headers['content-length'] = String(length);
      // A stream, not null: null would make the answer a 204; the route sends a HEAD's headers and no body.
      return { status: 200, headers, body: Readable.from([]) };
    },

    /** A waiter's answer from a fetch under way: streamed from the spool, or from the stored blob once it is done. */
    async joinFlight(entry: InFlight, coalesced: boolean): Promise<Reply> {
      const { flight } = entry;
      await flight.ready.catch(async (e: unknown) => {
        await flight.failureHandled;
        throw isHubError(e) ? e : errors.upstream(e instanceof Error ? e.message : 'upstream failed');
      });
      const headers: Record<string, string> = {
        'content-type': entry.contentType,
        'cache-control': IMMUTABLE,
        'x-hub-cache': entry.fromPeer ? 'peer' : coalesced ? 'coalesced' : 'miss',
      };
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
    },
  };
}

export type MissPath = ReturnType<typeof createMissPath>;
