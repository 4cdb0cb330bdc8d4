import { join } from 'node:path';
import t from 'tap';
import { watchRegistryQuotas } from '../src/cache/registry-quota.js';
import { createDb, createLogger, migrate, runtimeMigrations } from '../src/internal.js';
import type { ArtifactRow } from '../src/storage/artifact-rows.js';

/** The watch a fetch feeds: one sum per registry, then sizes added; a reclaim only past the limit. */
t.test('a registry passing its max_bytes starts one reclaim; one stuck above it waits for a tenth more', async (t) => {
  const db = createDb({ client: 'sqlite', filename: join(t.testdir(), 'hub.db') } as never);
  t.teardown(() => db.destroy());
  await migrate(db, [{ id: 'runtime', migrations: runtimeMigrations }]);
  let n = 0;
  const store = async (registry: string, size: number): Promise<ArtifactRow> => {
    const row: ArtifactRow = {
      registry,
      cache_key: `k${++n}`,
      package_name: 'p',
      version: String(n),
      blob_sha256: 'a'.repeat(64),
      size,
      content_type: 'application/octet-stream',
      upstream_url: null,
      origin: 'upstream',
      fetched_at: 0,
    };
    await db('artifacts').insert({ ...row, key_sha256: String(n).padStart(64, '0'), last_access_at: 0, pinned: false });
    return row;
  };
  const reclaims: string[] = [];
  // A reclaim that can remove nothing (say every file is pinned): the registry stays over its limit.
  const watch = watchRegistryQuotas({
    db,
    log: createLogger({ level: 'silent' }),
    limits: new Map([['small', 1000]]),
    reclaim: async (r) => void reclaims.push(r),
  });
  const fetched = async (registry: string, size: number) => {
    watch.stored(await store(registry, size));
    await watch.idle();
  };
  await fetched('small', 600);
  await fetched('other', 5000);
  t.same(reclaims, [], 'under the limit, and a registry without one is not watched');
  await fetched('small', 600);
  t.same(reclaims, ['small'], 'the fetch that passed 1000 bytes');
  await fetched('small', 50);
  t.same(reclaims, ['small'], 'still over, but less than a tenth of the limit more since: no reclaim per fetch');
  await fetched('small', 60);
  t.same(reclaims, ['small', 'small'], 'a tenth more: tried again');
});
