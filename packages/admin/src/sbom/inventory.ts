import { type PluginContext } from '@hub/runtime';
import { iso } from '@hub/admin-kit';
import { purl } from './purl.js';

export interface InventoryEntry {
  registry: string;
  name: string;
  version: string;
  purl: string;
  files: Array<{ key: string; sha256: string }>;
  pulled_by: Array<{ user_id: string | null; downloads: number; last: string | null }>;
}

/**
 * What hub holds (every cached or published file with a version, grouped per version) and who pulled it
 * (allowed downloads in the audit log, per user), for one registry or all. Files without a version (path
 * kinds' index files) are not packages and are left out.
 */
export async function inventory(hub: PluginContext, registries: readonly string[]): Promise<InventoryEntry[]> {
  const out: InventoryEntry[] = [];
  for (const registry of registries) {
    const type = hub.registries.find((r) => r.name === registry)!.type;
    const byVersion = new Map<string, InventoryEntry>();
    for (const a of await hub.services.held.list(registry)) {
      if (a.version === null || a.version === undefined) continue;
      const k = `${a.package_name}\0${a.version}`;
      let e = byVersion.get(k);
      if (!e)
        byVersion.set(
          k,
          (e = {
            registry,
            name: a.package_name,
            version: String(a.version),
            purl: purl(type, a.package_name, String(a.version)),
            files: [],
            pulled_by: [],
          }),
        );
      e.files.push({ key: a.cache_key, sha256: a.blob_sha256 });
    }
    for (const p of await hub.services.accessLog.pullers(registry))
      byVersion
        .get(`${p.package}\0${p.version}`)
        ?.pulled_by.push({ user_id: p.user_id, downloads: p.downloads, last: iso(p.last) });
    out.push(
      ...[...byVersion.values()].sort((a, b) =>
        a.name === b.name ? a.version.localeCompare(b.version) : a.name < b.name ? -1 : 1,
      ),
    );
  }
  return out;
}
