import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { BlobStore, EventBus, HubServices, ProbeResult, RegistryConfig, ServedRegistry } from '@hub/runtime';
import { checkContentDrift } from './content-drift.js';
import { AUDIT_ACTOR } from './block-arm.js';
import type { UpstreamAuditConfig } from './config.js';
import type { KeptListingStore } from './kept-listings.js';
import type { AuditMetrics } from './metrics.js';
import { loadRows, rowKey } from './rows.js';
import { isVoid, transition, type AuditPolicy, type AuditRow, type SweepTally } from './transitions.js';

/** packages/audit/README.md: at most this many versions (or files) per package per sweep. */
export const MAX_VERSIONS_PER_PACKAGE = 25;
const PACKAGE_CONCURRENCY = 4;

export interface SweepResult {
  registry: string;
  outcome: 'ok' | 'void' | 'skipped';
  /** Why a registry was skipped (local mode, no probe ladder, a forge kind). */
  reason?: string;
  probed: number;
  conclusive: number;
  missing: number;
  disappeared: number;
  reappeared: number;
}

export interface RecheckResult {
  registry: string;
  package_name: string;
  probes: ProbeResult[];
  cleared: string[];
  rows: AuditRow[];
}

export interface AuditEngineDeps {
  db: Knex;
  served: ReadonlyMap<string, ServedRegistry>;
  config: UpstreamAuditConfig;
  registries: readonly RegistryConfig[];
  events: EventBus;
  services: Pick<HubServices, 'blocks' | 'pins' | 'held'>;
  /** Packages whose last good listing is served (the audit keeps them from the first miss). */
  kept: Pick<KeptListingStore, 'keep' | 'release'>;
  metrics: AuditMetrics;
  log: Logger;
  /** Held bytes, for content drift digests other than sha256. */
  blobs: Pick<BlobStore, 'get'>;
  now?: () => number;
}

export type AuditEngine = ReturnType<typeof createAuditEngine>;

/** Sweeps, rechecks and the policy in force: the upstream-disappearance audit of packages/audit/README.md. */
export function createAuditEngine(d: AuditEngineDeps) {
  const cfg = d.config;
  const now = d.now ?? Date.now;
  const running = new Map<string, Promise<SweepResult>>();
  let stopping = false;
  const rule = { confirmAfter: cfg.confirm_after, confirmMinAgeMs: cfg.confirm_min_age_secs * 1000 };

  function policyOf(registry: string): { policy: AuditPolicy; overridden: boolean } {
    const own = d.registries.find((r) => r.name === registry)?.on_confirmed;
    return { policy: own ?? cfg.on_confirmed, overridden: own !== undefined && own !== cfg.on_confirmed };
  }

  /** Why a registry is not audited, or null. */
  function notAudited(reg: ServedRegistry): string | null {
    if (reg.info.mode === 'local') return 'local registries have no upstream';
    if (reg.info.mode === 'group') return 'a group registry holds nothing of its own: its members are audited';
    if (reg.kind.addressing === 'forge') return 'forge kinds are never probed';
    if (!reg.kind.probe) return `the ${reg.kind.id} kind has no probe ladder`;
    return null;
  }

  function servedOrThrow(registry: string): ServedRegistry {
    const reg = d.served.get(registry);
    if (!reg) throw new Error(`no registry named "${registry}"`);
    return reg;
  }

  async function probe(reg: ServedRegistry, name: string, versions: readonly string[]): Promise<ProbeResult[]> {
    try {
      const res = await reg.kind.probe!({ registry: reg.info, upstream: reg.upstream, log: d.log }, name, versions);
      // A ladder that leaves a version out has not answered for it.
      return versions.map(
        (v) =>
          res.find((r) => r.version === v) ?? {
            version: v,
            answer: 'inconclusive',
            rung: 'none',
            detail: 'no answer from the probe ladder',
          },
      );
    } catch (e) {
      return versions.map((v) => ({
        version: v,
        answer: 'inconclusive',
        rung: 'none',
        detail: `probe failed: ${(e as Error).message}`,
      }));
    }
  }

  /**
   * From the first miss the package's last good listing is served when the upstream answers 404, so the
   * held versions stay installable (a miss is not believed for blocking, but serving what is held is safe).
   */
  async function keep(reg: ServedRegistry, name: string) {
    if (reg.kind.addressing === 'path') return; // a path registry's "package" is the whole repository
    if (await d.kept.keep(reg.info.name, name, AUDIT_ACTOR))
      d.log.info(
        { registry: reg.info.name, package: name },
        'the upstream no longer lists this package; its last good listing is kept',
      );
  }

  /** Writes one transition and what goes with it: pins, notifications, the block arm. */
  async function apply(
    reg: ServedRegistry,
    row: AuditRow | undefined,
    name: string,
    p: ProbeResult,
    sweep: { allowBlock: boolean } | null,
    held: readonly string[],
  ) {
    const t = transition(row, p.answer, now(), rule, sweep !== null);
    const registry = reg.info.name;
    const where = { registry, key_sha256: rowKey(name, p.version) };
    const coordinate = reg.kind.coordinate.format({ name, version: p.version });
    const { policy } = policyOf(registry);
    const at = now();
    switch (t.to) {
      case 'none':
        return 'none';
      case 'touched':
        await d.db('upstream_audit').where(where).update({ last_checked_at: at });
        return 'touched';
      case 'cleared': {
        await d.db('upstream_audit').where(where).delete();
        // The listing is the upstream's again once no version of the name is missing or gone.
        if (!(await d.db('upstream_audit').where({ registry, package_name: name }).first('id')))
          await d.kept.release(registry, name);
        if (t.was !== 'disappeared') return 'cleared';
        // The name's audit blocks go once none of its versions is still confirmed gone.
        const stillGone = await d
          .db('upstream_audit')
          .where({ registry, package_name: name, state: 'disappeared' })
          .first('id');
        const scope = reg.kind.addressing === 'path' ? [p.version] : undefined;
        const lift =
          stillGone && !scope
            ? { lifted: [], othersStay: false }
            : await d.services.blocks.lift({ registry, package_name: name, by: AUDIT_ACTOR, versions: scope });
        await d.events.emit('package_reappeared_upstream', {
          registry,
          package_name: name,
          version: p.version,
          coordinate,
          rung: p.rung,
          unblocked_versions: lift.lifted,
          ...(lift.othersStay ? { unblock_skipped_reason: 'blocked_by_admin' } : {}),
        });
        d.log.info({ registry, coordinate, unblocked: lift.lifted }, 'held version answers upstream again');
        return 'reappeared';
      }
      case 'missing': {
        await keep(reg, name);
        const fields = {
          state: 'missing',
          misses: t.misses,
          last_checked_at: at,
          rung: p.rung,
          detail: p.detail ?? null,
          policy,
        };
        if (row) await d.db('upstream_audit').where(where).update(fields);
        else {
          await d.db('upstream_audit').insert({
            ...where,
            package_name: name,
            version: p.version,
            first_missed_at: t.firstMissedAt,
            confirmed_at: null,
            ...fields,
          });
          d.metrics.missing.inc({ registry });
        }
        return 'missing';
      }
      case 'disappeared': {
        await keep(reg, name);
        const fields = {
          state: 'disappeared',
          misses: t.misses,
          last_checked_at: at,
          confirmed_at: t.confirmedAt,
          rung: p.rung,
          detail: p.detail ?? null,
          policy: t.confirmedNow ? policy : (row?.policy ?? policy),
        };
        if (row) await d.db('upstream_audit').where(where).update(fields);
        else
          await d
            .db('upstream_audit')
            .insert({ ...where, package_name: name, version: p.version, first_missed_at: at, ...fields });
        // Held back from eviction, every sweep, so a purge-and-refetch cannot lose the last copy unnoticed.
        await d.services.pins.pin(registry, name, p.version);
        if (!t.confirmedNow) return 'still-gone';
        d.metrics.disappeared.inc({ registry });
        let blocked: string[] = [];
        let skipped: string | undefined;
        if (policy === 'block') {
          if (sweep?.allowBlock) {
            const versions = reg.kind.addressing === 'path' ? [p.version] : held.length ? held : [p.version];
            blocked = await d.services.blocks.addVersions({
              registry,
              package_name: name,
              versions,
              reason: `disappeared upstream: confirmed after ${t.misses} sweeps`,
              by: AUDIT_ACTOR,
            });
          } else skipped = `fewer than min_probed (${cfg.min_probed}) packages answered in this sweep`;
        }
        await d.events.emit('package_disappeared_upstream', {
          registry,
          package_name: name,
          version: p.version,
          coordinate,
          misses: t.misses,
          rung: p.rung,
          policy,
          ...(policy === 'block' ? { blocked_versions: blocked, blocked_by: AUDIT_ACTOR } : {}),
          ...(skipped ? { block_skipped_reason: skipped } : {}),
        });
        d.log.warn(
          { registry, coordinate, misses: t.misses, rung: p.rung, policy, blocked },
          'held version disappeared upstream (confirmed)',
        );
        return 'disappeared';
      }
    }
  }

  /** Which versions of each package to probe: known rows first, then the newest fetches, at most 25. */
  async function plan(
    registry: string,
    packageName?: string,
  ): Promise<{ plan: Array<[string, string[]]>; held: Map<string, string[]>; rows: Map<string, AuditRow> }> {
    const [held, rows] = await Promise.all([
      d.services.held.versions(registry, { packageName, origin: 'upstream' }),
      loadRows(d.db, registry, packageName),
    ]);
    const byName = new Map<string, string[]>();
    for (const r of rows.values()) byName.set(r.package_name, [...(byName.get(r.package_name) ?? []), r.version]);
    for (const [name, versions] of held) byName.set(name, [...new Set([...(byName.get(name) ?? []), ...versions])]);
    return { plan: [...byName].map(([n, v]) => [n, v.slice(0, MAX_VERSIONS_PER_PACKAGE)]), held, rows };
  }

  async function runSweep(registry: string, trigger: 'schedule' | 'manual'): Promise<SweepResult> {
    const reg = servedOrThrow(registry);
    const empty = { registry, probed: 0, conclusive: 0, missing: 0, disappeared: 0, reappeared: 0 };
    const reason = notAudited(reg);
    if (reason) return { ...empty, outcome: 'skipped', reason };
    const startedAt = now();
    const stop = d.metrics.duration.startTimer({ registry });
    const { plan: work, held, rows } = await plan(registry);

    const answers: Array<[string, ProbeResult[]]> = [];
    let next = 0;
    const worker = async () => {
      while (next < work.length && !stopping) {
        const [name, versions] = work[next++]!;
        answers.push([name, await probe(reg, name, versions)]);
      }
    };
    await Promise.all(Array.from({ length: Math.min(PACKAGE_CONCURRENCY, work.length) }, worker));

    if (stopping) {
      stop();
      return { ...empty, outcome: 'skipped', reason: 'the hub is stopping; nothing recorded' };
    }
    // The ratio gate counts packages; a path-addressed registry is one package (`repo`), so there it counts files.
    const audited = answers
      .map(([, res]) => res.filter((r) => r.answer !== 'not_audited'))
      .filter((res) => res.length > 0);
    const units = reg.kind.addressing === 'path' ? audited.flatMap((res) => res.map((r) => [r])) : audited;
    const tally: SweepTally = { probed: units.length, conclusive: 0, missing: 0 };
    for (const res of units) {
      if (res.some((r) => r.answer === 'present' || r.answer === 'absent')) tally.conclusive++;
      if (res.some((r) => r.answer === 'absent')) tally.missing++;
    }
    const result: SweepResult = { ...empty, ...tally, outcome: 'ok' };
    if (isVoid(tally, cfg.outage_ratio, cfg.min_probed)) {
      result.outcome = 'void';
      d.log.warn(
        { registry, ...tally, outage_ratio: cfg.outage_ratio },
        'audit sweep void: too much of the upstream failed to answer; nothing recorded',
      );
      await d.events.emit('upstream_unreachable', {
        registry,
        probed: tally.probed,
        conclusive: tally.conclusive,
        missing: tally.missing,
        outage_ratio: cfg.outage_ratio,
      });
    } else {
      const allowBlock = tally.conclusive >= cfg.min_probed;
      for (const [name, res] of answers)
        for (const p of res) {
          const out = await apply(
            reg,
            rows.get(rowKey(name, p.version)),
            name,
            p,
            { allowBlock },
            held.get(name) ?? [],
          );
          if (out === 'disappeared') result.disappeared++;
          if (out === 'reappeared') result.reappeared++;
        }
      // Content drift: for the versions the upstream still has, does it declare the digest of the bytes hub holds?
      const drift = {
        db: d.db,
        blobs: d.blobs,
        events: d.events,
        services: d.services,
        metrics: d.metrics,
        log: d.log,
        policy: cfg.on_content_change,
        now,
      };
      for (const [name, res] of answers)
        await checkContentDrift(
          drift,
          reg,
          name,
          res.filter((r) => r.answer === 'present').map((r) => r.version),
        );
    }
    stop();
    d.metrics.sweeps.inc({ registry, outcome: result.outcome });
    await d.db('upstream_sweeps').insert({
      registry,
      trigger,
      outcome: result.outcome,
      started_at: startedAt,
      finished_at: now(),
      probed: result.probed,
      conclusive: result.conclusive,
      missing: result.missing,
      disappeared: result.disappeared,
      reappeared: result.reappeared,
    });
    return result;
  }

  return {
    config: cfg,
    policyOf,
    notAudited,

    /** Sweeps under way stop probing and record nothing; resolves when they have ended. */
    async stop() {
      stopping = true;
      await Promise.allSettled([...running.values()]);
    },

    /** Sweeps one registry, or every served one in turn. A sweep already running is joined, not repeated. */
    async sweep(registry: string | undefined, trigger: 'schedule' | 'manual'): Promise<SweepResult[]> {
      const names = registry === undefined ? [...d.served.keys()] : [registry];
      const out: SweepResult[] = [];
      for (const name of names) {
        let p = running.get(name);
        if (!p) {
          p = runSweep(name, trigger).finally(() => running.delete(name));
          running.set(name, p);
        }
        out.push(await p);
      }
      return out;
    },

    /**
     * A revalidation (decision 0058) saw the package's listing lose versions, or answer 404: when hub holds some
     * of the package, it is swept now as one package of a sweep (a miss each, never a
     * confirmation before confirm_after and confirm_min_age_secs), through the probe ladder, so a listing that
     * never names some held versions (go pseudo-versions) is not a disappearance. Blocking needs min_probed 1.
     */
    async revalidated(r: {
      registry: string;
      package: string;
      gone: readonly string[];
      documents: ReadonlyArray<{ outcome: string }>;
    }): Promise<{ swept: boolean; missing: string[]; disappeared: string[]; cleared: string[] }> {
      const none = { swept: false, missing: [], disappeared: [], cleared: [] };
      const reg = d.served.get(r.registry);
      if (!reg || notAudited(reg)) return none;
      const { plan: work, held, rows } = await plan(r.registry, r.package);
      const versions = work[0]?.[1] ?? [];
      // Something went (or the whole listing answered 404), or versions are already missing: ask as a sweep would.
      const hasRows = [...rows.values()].some((row) => row.package_name === r.package);
      if (!versions.length || (!hasRows && !r.gone.length && !r.documents.some((doc) => doc.outcome === 'not_found')))
        return none;
      const out = { swept: true, missing: [] as string[], disappeared: [] as string[], cleared: [] as string[] };
      for (const p of await probe(reg, r.package, versions)) {
        const t = await apply(
          reg,
          rows.get(rowKey(r.package, p.version)),
          r.package,
          p,
          { allowBlock: cfg.min_probed <= 1 },
          held.get(r.package) ?? [],
        );
        if (t === 'missing') out.missing.push(p.version);
        if (t === 'disappeared' || t === 'still-gone') out.disappeared.push(p.version);
        if (t === 'cleared' || t === 'reappeared') out.cleared.push(p.version);
      }
      return out;
    },

    /**
     * Probes one package now (one version, or its rows and held versions). Like a sweep it clears rows
     * whose version answers; unlike a sweep it adds no miss, so it never creates or confirms a row.
     */
    async recheck(registry: string, packageName: string, version?: string): Promise<RecheckResult> {
      const reg = servedOrThrow(registry);
      const reason = notAudited(reg);
      if (reason) throw Object.assign(new Error(reason), { notAudited: true });
      const { plan: work, held, rows } = await plan(registry, packageName);
      const versions = version !== undefined ? [version] : (work[0]?.[1] ?? []);
      const probes = versions.length ? await probe(reg, packageName, versions) : [];
      const cleared: string[] = [];
      for (const p of probes) {
        const out = await apply(
          reg,
          rows.get(rowKey(packageName, p.version)),
          packageName,
          p,
          null,
          held.get(packageName) ?? [],
        );
        if (out === 'cleared' || out === 'reappeared') cleared.push(p.version);
      }
      return {
        registry,
        package_name: packageName,
        probes,
        cleared,
        rows: [...(await loadRows(d.db, registry, packageName)).values()],
      };
    },
  };
}
