import type { DetectUpstream } from '@hub/contract';

/** The registries.conf keys that name a registry host: a mirror first (what pulls really go to), then the registry, then the search list. */
function locations(toml: string): string[] {
  const found: { rank: number; host: string }[] = [];
  let table = '';
  for (const raw of toml.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    const header = /^\[\[?\s*([A-Za-z0-9_.-]+)\s*\]\]?$/.exec(line);
    if (header) {
      table = header[1]!;
      continue;
    }
    const loc = /^location\s*=\s*["']([^"']+)["']$/.exec(line);
    if (loc && (table === 'registry.mirror' || table === 'registry'))
      found.push({ rank: table === 'registry.mirror' ? 0 : 1, host: loc[1]! });
    const search = /^unqualified-search-registries\s*=\s*\[(.*)\]$/.exec(line);
    if (search && table === '')
      for (const m of search[1]!.matchAll(/["']([^"']+)["']/g)) found.push({ rank: 2, host: m[1]! });
  }
  return found.sort((a, b) => a.rank - b.rank).map((f) => f.host);
}

/**
 * Container clients (podman, skopeo, buildah) read registries.conf: the user's, else the machine's. A location
 * is `host[:port][/namespace]`, always served over https unless marked insecure; hub wants the host's base.
 */
export const detectUpstream: DetectUpstream = async (ctx) => {
  const candidates: [string, () => Promise<string | null>][] = [
    ['~/.config/containers/registries.conf', () => ctx.readHomeFile('.config', 'containers', 'registries.conf')],
    [
      '/etc/containers/registries.conf',
      async () => (ctx.readSystemFile ? ctx.readSystemFile('/etc/containers/registries.conf') : null),
    ],
  ];
  for (const [source, read] of candidates) {
    const text = await read();
    if (!text) continue;
    const host = locations(text)
      .map((l) => l.split('/')[0]!)
      .find((h) => /^[A-Za-z0-9.-]+(:\d+)?$/.test(h));
    if (host) return { upstream: `https://${host}`, source };
  }
  return null;
};
