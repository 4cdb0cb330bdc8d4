/** `[cache]`: the artifact cache, its memory tier and retention. */
import Type from 'typebox';
import { strict } from '../schema-helpers.js';

export const CacheSchema = Type.Object(
  {
    memory_bytes: Type.Integer({
      default: 134217728,
      minimum: 0,
      description:
        'Memory for hot small artifacts and metadata, per process, in bytes: half for artifacts, a quarter for upstream documents, a quarter for their parsed and rewritten forms (estimated). Every tier is bounded in bytes, whatever the number of entries. 0 keeps nothing in memory.',
    }),
    metadata_fetch_concurrency: Type.Integer({
      default: 32,
      minimum: 1,
      description:
        'Upstream metadata documents fetched at once, per process; further refreshes wait (requests for one document always share one fetch).',
    }),
    metadata_max_stale_secs: Type.Integer({
      default: 3600,
      minimum: 0,
      description:
        'How long past its TTL a listing (a packument, an index file, a project page) is still served while one refresh asks the upstream in the background, so no client waits for a slow upstream; past it the client waits for the refresh. 0 = always wait. A registry with metadata_ttl_secs = 0 always waits.',
    }),
    memory_max_object_bytes: Type.Integer({
      default: 1048576,
      minimum: 0,
      description: 'Artifacts larger than this are never kept in memory.',
    }),
    verify_reads: Type.Boolean({
      default: true,
      description:
        'Hash cached artifacts read from disk against their name: on the first read per process of each file (and again when the file changed, or after an hour; decision 0030). A corrupt copy is discarded and fetched again.',
    }),
    fetch_lease_secs: Type.Integer({
      default: 10,
      minimum: 1,
      description:
        'With a shared (MySQL) database: how long the replica fetching an artifact holds it for the others without renewing (renewed every third of it while the fetch runs). A replica that dies mid-fetch is replaced by another after at most this long.',
    }),
    negative_ttl_secs: Type.Integer({
      default: 60,
      minimum: 0,
      description: 'How long an upstream 404 is remembered before asking again.',
    }),
    max_bytes: Type.Integer({
      default: 0,
      minimum: 0,
      description:
        'Retention: above this many bytes of cached artifacts, the least recently downloaded are removed down to 90% of it; 0 = no limit. Pinned artifacts (disappeared upstream), held versions (retention holds) and local publications are never removed.',
    }),
    max_idle_days: Type.Integer({
      default: 0,
      minimum: 0,
      description: 'Retention: artifacts not downloaded for this many days are removed; 0 = never.',
    }),
    retention_interval_secs: Type.Integer({
      default: 3600,
      minimum: 60,
      description: 'How often retention runs (once per interval across replicas).',
    }),
    cleanup_interval_secs: Type.Integer({
      default: 86400,
      minimum: 60,
      description:
        "How often the registries' `[[registries.cleanup]]` rules run (once per interval across replicas); only when some registry has rules.",
    }),
  },
  { ...strict, default: {}, description: 'The artifact cache: its in-process memory tier, and retention.' },
);
