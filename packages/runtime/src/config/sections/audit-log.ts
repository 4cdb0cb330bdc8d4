/** `[audit_log]` and its export sinks. */
import Type from 'typebox';
import { strict } from '../schema-helpers.js';

export const AuditExportSchema = Type.Object(
  {
    type: Type.Enum(['syslog', 'jsonl'], {
      description:
        '`syslog`: RFC 5424 messages over TCP (octet-counting framing, RFC 6587), or TLS with `tls_ca_file`; `jsonl`: one JSON object per line appended to `path`.',
    }),
    name: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$',
        description:
          "Names the sink's delivery cursor in the database. Default: the type and the address or path; set it to keep the cursor when the address changes.",
      }),
    ),
    address: Type.Optional(
      Type.String({ minLength: 3, description: 'syslog: the receiver as `host:port` (`[v6]:port`).' }),
    ),
    tls_ca_file: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "syslog: connect with TLS, checking the receiver's certificate against the CA certificate(s) in this PEM file (relative to the config file).",
      }),
    ),
    path: Type.Optional(
      Type.String({ minLength: 1, description: 'jsonl: the file rows are appended to (relative to the config file).' }),
    ),
    app_name: Type.String({
      default: 'hub',
      pattern: '^[!-~]{1,48}$',
      description: 'syslog: the APP-NAME of each message.',
    }),
    facility: Type.Integer({
      default: 13,
      minimum: 0,
      maximum: 23,
      description: 'syslog: the facility number (13: log audit; 10: authpriv; 16-23: local0-local7).',
    }),
  },
  { ...strict, description: 'One export sink of the audit log.' },
);

export const AuditLogSchema = Type.Object(
  {
    enabled: Type.Boolean({
      default: true,
      description:
        'Record access events (registry requests, admin actions, refusals) in the database. Off only for measurements.',
    }),
    flush_interval_ms: Type.Integer({
      default: 500,
      minimum: 10,
      maximum: 60000,
      description: 'Events are buffered in memory and written in batches at least this often (and on shutdown).',
    }),
    batch_rows: Type.Integer({
      default: 500,
      minimum: 1,
      maximum: 10000,
      description: 'A buffer holding this many events is written at once.',
    }),
    retention_days: Type.Integer({
      default: 0,
      minimum: 0,
      description:
        'Events older than this many days are deleted (hourly, once across replicas); 0 keeps them forever. The exposure report only knows fetches still in the log. A chain is cut only up to its newest checkpoint before that age, so it stays verifiable (it then starts at that checkpoint).',
    }),
    chain: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$',
        description:
          "The hash chain this replica appends its audit rows to (decision 0065). Replicas sharing a MySQL database should each name their own (its host name, a stable pod name, through `chain_env`): two writers on one chain still keep it intact, but retry each other's batches. Default: `local`.",
      }),
    ),
    chain_env: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Name of the environment variable holding `chain`; after loading, its value is in `chain`.',
      }),
    ),
    checkpoint_key_file: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'PEM file of an Ed25519 private key (`openssl genpkey -algorithm ed25519`) that signs the chain checkpoints, relative to the config file. Unset: checkpoints are written unsigned (they still anchor a pruned chain, but prove nothing).',
      }),
    ),
    checkpoint_key_id: Type.String({
      default: 'default',
      minLength: 1,
      maxLength: 128,
      description: 'The name recorded with each signature, so a verifier knows which key made it.',
    }),
    checkpoint_every_rows: Type.Integer({
      default: 10000,
      minimum: 1,
      description: 'A checkpoint is written after this many rows of a chain since the last one...',
    }),
    checkpoint_every_secs: Type.Integer({
      default: 300,
      minimum: 1,
      description:
        '...or after this many seconds, whichever comes first (only when rows were written since), and when hub stops.',
    }),
    export: Type.Array(AuditExportSchema, {
      default: [],
      description:
        'Sinks the audit rows are delivered to as they are written, as `[[audit_log.export]]` tables (docs/operations.md).',
    }),
  },
  {
    ...strict,
    default: {},
    description:
      'The audit log of access events (`GET /api/v1/admin/audit-log`), its hash chain and signed checkpoints (`hub audit verify`), and its exports (docs/security.md, docs/operations.md).',
  },
);
