import type { Logger } from 'pino';
import type { PluginContext } from '@hub/runtime';

/** Entries read in one artifact before its manifest is given up on. */
const MAX_ENTRIES = 100_000;

export interface AnalysisResult {
  registry: string;
  /** Held artifacts whose dependencies are known after this run. */
  artifacts: number;
  /** Read in this run (the rest were read before: analysis is incremental). */
  analysed: number;
  failed: number;
  analysed_at: string;
}

/**
 * Reads the dependencies of every held artifact not read yet, through the kind's SBOM extractor, and
 * forgets those of artifacts no longer held. Development dependencies are left out: consumers do not
 * install them. Names go through the kind's normalizeName, as flags do.
 */
export async function analyseRegistry(
  hub: Pick<PluginContext, 'registries' | 'kinds' | 'config' | 'services' | 'db' | 'blobs'>,
  registry: string,
  log: Logger,
): Promise<AnalysisResult | null> {
  const reg = hub.registries.find((r) => r.name === registry);
  const kind = reg && hub.kinds.get(reg.type);
  if (!kind?.sbom) return null;
  const { db, blobs } = hub;
  // Bytes read: every held artifact met [limits] max_artifact_bytes when it was cached, so a large
  // .vsix or .nupkg (spooled whole, its central directory being at the end) is still read.
  const limits = { maxBytes: hub.config.limits.max_artifact_bytes, maxEntries: MAX_ENTRIES };
  const held = await hub.services.held.list(registry);
  const done = new Set(
    ((await db('sbom_artifacts').where({ registry }).select('key_sha256')) as Array<{ key_sha256: string }>).map(
      (r) => r.key_sha256,
    ),
  );
  let analysed = 0;
  let failed = 0;
  for (const a of held) {
    if (done.has(a.key_sha256) || !kind.sbom.appliesTo(a.cache_key)) continue;
    const body = await blobs.get(a.blob_sha256);
    if (!body) continue;
    let deps;
    try {
      deps = (await kind.sbom.extract(body, limits)).filter((d) => d.scope !== 'dev');
    } catch (e) {
      body.destroy();
      failed++;
      log.warn(
        { registry, key: a.cache_key, err: (e as Error).message },
        'could not read the dependencies of a held artifact',
      );
      continue;
    }
    const norm = (n: string) => kind.coordinate.normalizeName?.(n) ?? n;
    await db.transaction(async (trx) => {
      const rows = deps.map((d) => ({
        registry,
        key_sha256: a.key_sha256,
        package_name: a.package_name,
        version: a.version,
        dep_name: norm(d.name).slice(0, 512),
        dep_range: d.range.slice(0, 255),
        scope: d.scope,
      }));
      for (let i = 0; i < rows.length; i += 200) await trx('sbom_dependencies').insert(rows.slice(i, i + 200));
      await trx('sbom_artifacts').insert({ registry, key_sha256: a.key_sha256, dependencies: rows.length });
    });
    analysed++;
  }
  const heldKeys = new Set(held.map((a) => a.key_sha256));
  const gone = [...done].filter((k) => !heldKeys.has(k));
  for (let i = 0; i < gone.length; i += 500) {
    const chunk = gone.slice(i, i + 500);
    await db('sbom_dependencies').where({ registry }).whereIn('key_sha256', chunk).delete();
    await db('sbom_artifacts').where({ registry }).whereIn('key_sha256', chunk).delete();
  }
  const now = Date.now();
  const counted = (await db('sbom_artifacts').where({ registry }).count({ n: '*' })) as Array<{ n: number | string }>;
  const artifacts = Number(counted[0]?.n ?? 0);
  await db('sbom_analyses').insert({ registry, analysed_at: now, artifacts, failed }).onConflict('registry').merge();
  return { registry, artifacts, analysed, failed, analysed_at: new Date(now).toISOString() };
}
