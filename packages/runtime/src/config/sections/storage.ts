/** `[database]` and `[storage]`: where rows and artifact bytes are kept. */
import Type from 'typebox';
import { strict, secretPair, httpUrl } from '../schema-helpers.js';

export const DatabaseSchema = Type.Object(
  {
    client: Type.Enum(['sqlite', 'mysql'], {
      default: 'sqlite',
      description: '`sqlite` for one instance; `mysql` (or MariaDB) when replicas share state.',
    }),
    filename: Type.String({
      default: './data/hub.db',
      minLength: 1,
      description: 'SQLite database file, relative to the config file (`:memory:` for a throw-away database).',
    }),
    url: Type.Optional(
      Type.String({
        minLength: 1,
        examples: ['mysql://user:pass@127.0.0.1:3306/hub'],
        description: 'MySQL connection URL; required with client = "mysql" (or url_env).',
      }),
    ),
    url_env: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Name of the environment variable holding the MySQL URL; after loading the value is in `url`.',
      }),
    ),
  },
  {
    ...strict,
    default: {},
    description: 'Where users, tokens, blocks, flags, the artifact index and the audit log live.',
  },
);

export const StorageSchema = Type.Object(
  {
    kind: Type.String({
      default: 'fs',
      pattern: '^[a-z][a-z0-9-]*$',
      errorMessage: 'must be a store name (lowercase letters, digits, dashes), like "fs" or "s3"',
      description:
        '`fs` stores blobs under `path`; `s3` (the `@hub/storage-s3` plugin) in an S3-compatible bucket; another value names a store a loaded plugin provides.',
    }),
    path: Type.String({
      default: './data/blobs',
      minLength: 1,
      description:
        'Blob folder for kind = "fs"; for other kinds, the local spool for downloads in progress (`<path>/tmp`). Relative to the config file.',
    }),
    bucket: Type.Optional(Type.String({ minLength: 1, description: 'S3 bucket; required with kind = "s3".' })),
    endpoint: Type.Optional(
      httpUrl('S3 endpoint for S3-compatible stores; unset: the SDK default for the region.', 'http://127.0.0.1:9000'),
    ),
    region: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'S3 region; unset: `us-east-1` with an `endpoint`, else the SDK default (AWS_REGION, the profile).',
      }),
    ),
    prefix: Type.Optional(Type.String({ description: 'Key prefix inside the bucket, e.g. `hub/`.' })),
    force_path_style: Type.Boolean({
      default: false,
      description: 'Address the bucket as `<endpoint>/<bucket>` (most self-hosted S3-compatible stores need this).',
    }),
    ...secretPair('access_key_id', 'S3 access key id (unset: the SDK default credential chain)'),
    ...secretPair('secret_access_key', 'S3 secret access key'),
  },
  { ...strict, default: {}, description: 'Where artifact bytes (blobs, content-addressed by SHA-256) are kept.' },
);
