import Type from 'typebox';
import type { ConfigSection } from '@hub/runtime';

export const LockfileSchema = Type.Object(
  {
    max_bytes: Type.Integer({
      minimum: 1024,
      default: 8388608,
      description:
        'Largest lockfile text a check reads. The request body also stays within `[limits] max_json_body_bytes`: raise both for very large lockfiles.',
    }),
    max_entries: Type.Integer({
      minimum: 1,
      default: 20000,
      description: 'Most entries (package versions) one lockfile may hold; a larger one is refused whole.',
    }),
    concurrency: Type.Integer({
      minimum: 1,
      maximum: 64,
      default: 8,
      description: 'Upstream probes and (with `warm`) fetches a check runs at a time.',
    }),
  },
  {
    default: {},
    additionalProperties: false,
    description: 'Lockfile checks and warming (`POST /api/v1/admin/lockfile/check`, `hub lockfile check`, `hub warm`).',
  },
);

export const lockfileSection: ConfigSection<typeof LockfileSchema> = { section: 'lockfile', schema: LockfileSchema };
