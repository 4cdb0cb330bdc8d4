import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { BlobStore, DeclaredDigest, EventBus, HubServices, ServedRegistry } from '@hub/runtime';
import { AUDIT_ACTOR } from './block-arm.js';
import type { AuditMetrics } from './metrics.js';
import { rowKey } from './rows.js';

export type ContentPolicy = 'audit' | 'block';

export interface DriftDeps {
  db: Knex;
  blobs: Pick<BlobStore, 'get'>;
  events: EventBus;
  services: Pick<HubServices, 'blocks' | 'held'>;
  metrics: AuditMetrics;
  log: Logger;
  policy: ContentPolicy;
  now: () => number;
}

/**
 * The digest of held bytes: sha256 is their content address; another plain hash reads them once; a kind's
 * own (go's `h1`) is the kind's to compute. Null when they cannot be read.
 */
async function heldDigest(blobs: DriftDeps['blobs'], blobSha256: string, dd: DeclaredDigest): Promise<string | null> {
  if (dd.algorithm === 'sha256' && !dd.heldDigest) return blobSha256;
  const body = await blobs.get(blobSha256);
  if (!body) return null;
  if (dd.heldDigest) return dd.heldDigest(body).catch(() => null);
  if (dd.algorithm === 'h1') {
    body.destroy();
    return null;
  }
  const hash = createHash(dd.algorithm);
  for await (const chunk of body) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The record's key: per version, or per file when the digest names one (a maven version holds several). */
const changeKey = (name: string, dd: DeclaredDigest): string =>
  dd.key === undefined ? rowKey(name, dd.version) : rowKey(name, `${dd.version}\0${dd.key}`);

/**
 * Content drift (issue 16): the digest the upstream declares now for each held version against the bytes hub
 * holds. A difference is recorded once per upstream digest (`upstream_content_changes`), sent as
 * `package_content_changed`, counted, and under `on_content_change = "block"` blocks that version as
 * system:upstream-audit. A digest that matches again clears the record (an administrator lifts any block).
 * A digest names its held file by cache key (`DeclaredDigest.key`); one without a key is compared only
 * when the version holds a single file.
 */
export async function checkContentDrift(
  d: DriftDeps,
  reg: ServedRegistry,
  name: string,
  versions: readonly string[],
): Promise<number> {
  const declare = reg.kind.declaredDigests;
  if (!declare || versions.length === 0) return 0;
  const registry = reg.info.name;
  const files = new Map<string, Array<{ key: string; blob: string }>>();
  for (const a of await d.services.held.list(registry, { packageName: name }))
    if (a.version)
      files.set(String(a.version), [
        ...(files.get(String(a.version)) ?? []),
        { key: a.cache_key, blob: a.blob_sha256 },
      ]);
  const keys = new Map([...files].map(([v, fs]) => [v, fs.map((f) => f.key)]));
  let declared: DeclaredDigest[];
  try {
    declared = await declare({ registry: reg.info, upstream: reg.upstream, log: d.log }, name, versions, keys);
  } catch (e) {
    d.log.warn(
      { registry, package: name, err: (e as Error).message },
      'could not read the digests the upstream declares',
    );
    return 0;
  }
  let changed = 0;
  for (const dd of declared) {
    const held = files.get(dd.version) ?? [];
    const file = dd.key === undefined ? (held.length === 1 ? held[0] : undefined) : held.find((f) => f.key === dd.key);
    if (!file) continue;
    const have = await heldDigest(d.blobs, file.blob, dd);
    if (have === null) continue;
    const where = { registry, key_sha256: changeKey(name, dd) };
    const row = (await d.db('upstream_content_changes').where(where).first('upstream_digest')) as
      { upstream_digest: string } | undefined;
    if (have === dd.hex.toLowerCase()) {
      if (row) await d.db('upstream_content_changes').where(where).delete();
      continue;
    }
    if (row?.upstream_digest === dd.hex) continue; // already reported
    changed++;
    const at = d.now();
    const fileField = dd.key === undefined ? {} : { file: dd.key };
    const fields = {
      package_name: name,
      version: dd.version,
      ...fileField,
      algorithm: dd.algorithm,
      held_digest: have,
      upstream_digest: dd.hex,
      detected_at: at,
      policy: d.policy,
    };
    if (row) await d.db('upstream_content_changes').where(where).update(fields);
    else await d.db('upstream_content_changes').insert({ ...where, ...fields });
    d.metrics.contentChanged.inc({ registry });
    const coordinate = reg.kind.coordinate.format({ name, version: dd.version });
    let blocked: string[] = [];
    const what = dd.key === undefined ? '' : ` for ${dd.key}`;
    if (d.policy === 'block')
      blocked = await d.services.blocks.addVersions({
        registry,
        package_name: name,
        versions: [dd.version],
        reason: `content changed upstream: the upstream now declares ${dd.algorithm} ${dd.hex}${what}, hub holds ${have}`,
        by: AUDIT_ACTOR,
      });
    await d.events.emit('package_content_changed', {
      registry,
      package_name: name,
      version: dd.version,
      coordinate,
      ...fileField,
      algorithm: dd.algorithm,
      held_digest: have,
      upstream_digest: dd.hex,
      policy: d.policy,
      ...(d.policy === 'block' ? { blocked_versions: blocked, blocked_by: AUDIT_ACTOR } : {}),
    });
    d.log.warn(
      { registry, coordinate, ...fileField, algorithm: dd.algorithm, held: have, upstream: dd.hex, policy: d.policy },
      'the upstream declares another digest for a held version (content changed)',
    );
  }
  return changed;
}
