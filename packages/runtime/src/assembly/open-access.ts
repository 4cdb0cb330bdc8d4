/**
 * createHub's second step: who may do what (the bootstrap admin, the authenticator, access control), the
 * audit log and its export, the per-IP rate buckets and the URL signer.
 */
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { loadCheckpointKey } from '../audit/checkpoint-key.js';
import { createAuditLog } from '../audit/audit-log.js';
import { startAuditExport } from '../audit/export/audit-export.js';
import { createAuthenticator } from '../auth/authenticate.js';
import { bootstrapAdmin } from '../auth/bootstrap.js';
import { loadUrlSigner } from '../auth/signed-urls.js';
import type { HubConfig } from '../config/schema.js';
import type { HubMetrics } from '../metrics.js';
import type { OpenedStorage } from './open-storage.js';
import { createAccessControl } from '../policy/access-control.js';
import { createPolicySource } from '../policy/policy-source.js';

/** The two token buckets of a config: requests, and auth challenges. */
export const bucketsOf = (c: HubConfig) => [
  { ratePerSec: c.limits.rate_per_ip, burst: c.limits.burst_per_ip },
  { ratePerSec: c.limits.challenges_per_ip, burst: c.limits.challenge_burst_per_ip },
];

export async function openAccess(
  o: {
    config: HubConfig;
    db: Knex;
    log: Logger;
    metrics: HubMetrics;
    envAdminToken?: string;
    print: (line: string) => void;
  },
  rateStoreFor: OpenedStorage['rateStoreFor'],
) {
  const { config, db, log, metrics } = o;
  const adminHash = await bootstrapAdmin(db, {
    adminTokenSha256: config.auth.admin_token_sha256,
    envToken: o.envAdminToken,
    log,
    print: o.print,
  });
  const auth = createAuthenticator(db, { adminTokenSha256: adminHash });
  const access = createAccessControl(auth, createPolicySource(db, config.auth.policies ?? []), config.auth.anonymous);
  const auditConfig = config.audit_log;
  // Each replica delivers the rows of its own chain to the export sinks (decision 0065).
  const auditExport = startAuditExport({
    db,
    log,
    chain: auditConfig.chain ?? 'local',
    sinks: auditConfig.enabled ? auditConfig.export : [],
  });
  const audit = createAuditLog({
    db,
    log,
    metrics,
    enabled: auditConfig.enabled,
    flushIntervalMs: auditConfig.flush_interval_ms,
    batchRows: auditConfig.batch_rows,
    chain: auditConfig.chain ?? 'local',
    checkpointKey:
      auditConfig.checkpoint_key_file === undefined
        ? undefined
        : loadCheckpointKey(auditConfig.checkpoint_key_file, auditConfig.checkpoint_key_id),
    checkpointEveryRows: auditConfig.checkpoint_every_rows,
    checkpointEveryMs: auditConfig.checkpoint_every_secs * 1000,
    onWritten: auditExport.wake,
  });
  // The stores read their bucket on every call: a hot reload assigns new numbers into these objects.
  const [bucket, challengeBucket] = bucketsOf(config) as [
    { ratePerSec: number; burst: number },
    { ratePerSec: number; burst: number },
  ];
  const rates = rateStoreFor(bucket, 'rate');
  const challenges = rateStoreFor(challengeBucket, 'challenge');
  const signer = await loadUrlSigner(db);
  return { auth, access, auditExport, audit, bucket, challengeBucket, rates, challenges, signer };
}

export type OpenedAccess = Awaited<ReturnType<typeof openAccess>>;
