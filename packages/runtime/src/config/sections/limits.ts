/** `[limits]`: per-IP rates and the size caps on what clients and upstreams send. */
import Type from 'typebox';
import { strict } from '../schema-helpers.js';

export const LimitsSchema = Type.Object(
  {
    packages_per_page: Type.Integer({
      default: 50,
      minimum: 1,
      maximum: 1000,
      description: 'Page size of paged admin listings (the disappeared-packages listing).',
    }),
    rate_per_ip: Type.Number({
      default: 50,
      exclusiveMinimum: 0,
      description: 'Sustained requests per second per client IP before 429.',
    }),
    burst_per_ip: Type.Integer({
      default: 200,
      minimum: 1,
      description: 'Requests one IP may make in a burst above the sustained rate.',
    }),
    challenges_per_ip: Type.Number({
      default: 20,
      exclusiveMinimum: 0,
      description:
        'Sustained 401 challenges per second per client IP (answers to requests that carried no credentials). They cost nothing from `rate_per_ip`, so maven and NuGet, which ask without credentials first, are not charged twice; past this budget such requests get 429.',
    }),
    challenge_burst_per_ip: Type.Integer({
      default: 200,
      minimum: 1,
      description: 'Challenges one IP may get in a burst above `challenges_per_ip`.',
    }),
    rate_store: Type.Enum(['memory', 'redis'], {
      default: 'memory',
      description:
        'Where the per-IP rate counters live: `memory` counts per replica; `redis` (needs `[redis] url`) shares them between replicas.',
    }),
    rate_store_failure: Type.Enum(['open', 'closed'], {
      default: 'open',
      description:
        'While the Redis rate store cannot answer: `open` lets requests through (the limiter protects capacity, not access), `closed` answers 429.',
    }),
    max_json_body_bytes: Type.Integer({
      default: 1048576,
      minimum: 1,
      description: 'Largest JSON request body accepted (413 above).',
    }),
    max_metadata_bytes: Type.Integer({
      default: 67108864,
      minimum: 1,
      description: 'Largest upstream metadata document hub will read.',
    }),
    max_artifact_bytes: Type.Integer({
      default: 4294967296,
      minimum: 1,
      description: 'Largest artifact hub will fetch, store or accept on publish.',
    }),
    flag_hard_block_bytes: Type.Integer({
      default: 67108864,
      minimum: 1024,
      description:
        'Memory for the active `hard_block` flags each replica holds (so they refuse while the database is down), counted as the bytes of their strings plus a fixed overhead per flag. Over it hub refuses to start; a later reload over it keeps the previous set and logs an error.',
    }),
  },
  { ...strict, default: {}, description: 'Sizes and rates that protect the instance.' },
);
