/** What a plugin adds to the admin health card: hub-wide facts and per-registry facts, under its section name. */
export interface HealthContribution {
  summary?: Record<string, unknown>;
  registries?: Record<string, Record<string, unknown>>;
}

/** Plugins contribute to `GET /api/v1/admin/health` without the admin plugin knowing them. */
export interface HealthBoard {
  contribute(section: string, collect: () => Promise<HealthContribution>): void;
  collect(): Promise<Map<string, HealthContribution>>;
}

export function createHealthBoard(): HealthBoard {
  const sections = new Map<string, () => Promise<HealthContribution>>();
  return {
    contribute(section, collect) {
      sections.set(section, collect);
    },
    async collect() {
      const out = new Map<string, HealthContribution>();
      for (const [name, collect] of sections) out.set(name, await collect());
      return out;
    },
  };
}
