import { VERSION } from '@hub/runtime';
import { adminRoute, type AdminRoute } from '@hub/admin-kit';
import { HealthAnswer } from '../answer-schemas.js';

/** A group member's state from its mirrors' breakers (the `upstream_mirrors` section); a local member has none. */
function memberState(mirrors: unknown): 'ok' | 'degraded' | 'down' {
  const states = ((mirrors as { mirrors?: Array<{ state?: string }> } | undefined)?.mirrors ?? []).map((m) => m.state);
  const open = states.filter((s) => s === 'open').length;
  return open === 0 ? 'ok' : open === states.length ? 'down' : 'degraded';
}

/**
 * The health card (docs/openapi.json): per registry its kind, mode, upstream and what is cached, plus the sections
 * other plugins contribute (the audit adds its policy and missing/disappeared counts).
 */
export const healthRoutes: AdminRoute[] = [
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/health',
    permission: 'system:read',
    action: 'health',
    summary: 'The health card: database, storage, cache and per-registry state, plus plugin sections',
    response: HealthAnswer,
    async handle({ ctx, hub }) {
      const cached = await hub.services.held.usage();
      const sections = await hub.health.collect();
      let database = 'ok';
      try {
        await hub.db.raw('select 1');
      } catch {
        database = 'unreachable';
      }
      const body: Record<string, unknown> = {
        status: database === 'ok' ? 'ok' : 'degraded',
        version: VERSION,
        database,
        storage: hub.config.storage.kind,
        // Cache size against [cache] max_bytes (0: no limit), for the console's health card.
        cache: {
          held_bytes: [...cached.values()].reduce((n, c) => n + c.bytes, 0),
          max_bytes: hub.config.cache.max_bytes,
        },
        registries: hub.registries.map((r) => {
          const entry: Record<string, unknown> = {
            name: r.name,
            type: r.type,
            mode: r.mode,
            upstream: r.upstream ?? null,
            cached: cached.get(r.name) ?? { artifacts: 0, bytes: 0 },
          };
          for (const [section, s] of sections) if (s.registries?.[r.name]) entry[section] = s.registries[r.name];
          if (r.mode === 'group')
            entry.members = (r.members ?? []).map((m) => ({
              name: m,
              mode: hub.registries.find((x) => x.name === m)?.mode ?? 'proxy',
              state: memberState(sections.get('upstream_mirrors')?.registries?.[m]),
            }));
          return entry;
        }),
      };
      for (const [section, s] of sections) if (s.summary) body[section] = s.summary;
      ctx.body = body;
    },
  }),
];
