/**
 * Hot reload (decision 0057): re-read hub.toml from the file hub started with, validate it completely with the
 * start-up loader, refuse it (the old one keeps serving) when it has an error or changes a key that needs a
 * restart, else bind what changed and swap the generation at once. Each reload is an audit row with the
 * changed keys (secrets masked), a `config_reloaded` event when applied, and `hub_config_reloads_total`.
 */
import type { Logger } from 'pino';
import type { AuditContext } from '../audit/access-event.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { EventBus } from '../events/event-bus.js';
import type { HubMetrics } from '../metrics.js';
import type { HubPlugin, PluginInstance } from '../contract/plugin.js';
import type { BoundRegistry } from '../server/registry-routes.js';
import { chooseLocalStore } from '../plugins/open-local-store.js';
import { diffConfig, type KeyChange } from './config-diff.js';
import type { LiveConfig } from './live-config.js';
import { NETWORK_KEYS, restartOnly } from './live-keys.js';
import type { HubConfig } from './schema.js';
import type { ConfigReload, ReplicaReload } from '../contract/config-reload.js';

export type { ConfigReload, ReplicaReload } from '../contract/config-reload.js';

export interface ReloaderDeps {
  live: LiveConfig;
  /** Reads and validates the file again; absent when hub was not started from a file. */
  reread?: () => HubConfig;
  others: readonly HubPlugin[];
  /** The plugins' instances, each with its plugin (for its section's name). */
  instances: ReadonlyArray<{ plugin: HubPlugin; instance: PluginInstance }>;
  /** Binds these registries of `config` (new or changed) to their kinds and fresh upstream clients. */
  bind(config: HubConfig, registries: HubConfig['registries']): ReadonlyMap<string, BoundRegistry>;
  /** Adds each group of `config` over the registries bound (and puts all in the file's order). */
  regroup(config: HubConfig, registries: Map<string, BoundRegistry>): void;
  /**
   * Waits, before retired upstream clients close, for cache fills a gone client started (others may be tailing
   * them), bounded by the shutdown grace.
   */
  fillsSettled(): Promise<void>;
  /** Applies the runtime's own live keys (policies, anonymous grants, rate buckets, log level). */
  apply(next: HubConfig): void;
  audit: AuditLog;
  events: EventBus;
  metrics: HubMetrics;
  log: Logger;
  replicaId(): string;
  /** The other replicas' answers (the cluster); absent without one. */
  reloadPeers?(by: string | null): Promise<ReplicaReload[]>;
}

/** What an audit row's detail may hold (access_events.detail). */
const DETAIL_CHARS = 4000;

export function createConfigReloader(d: ReloaderDeps): ConfigReload {
  // One reload at a time on a replica: a second waits for the first and compares against its result.
  let queue: Promise<unknown> = Promise.resolve();

  async function attempt(): Promise<{ outcome: ReplicaReload; changes: KeyChange[] }> {
    const id = d.replicaId();
    const refused = (error: string, changes: KeyChange[] = []) => ({
      outcome: { id, result: 'refused' as const, changed_keys: changes.map((c) => c.key), error },
      changes,
    });
    if (!d.reread) return refused('this hub was not started from a configuration file, so there is nothing to re-read');
    let next: HubConfig;
    try {
      next = d.reread();
    } catch (e) {
      // ConfigError: every issue as `<file>:<line>: <key>: <problem>`; StartupError: an unknown kind.
      return refused((e as Error).message);
    }
    const old = d.live.current.config;
    const changes = diffConfig(old, next);
    const withReload = d.instances.filter((i) => i.instance.reload && i.plugin.config);
    const problems = restartOnly(changes, new Set(withReload.map((i) => i.plugin.config!.section)));
    for (const r of next.registries) {
      const before = old.registries.find((o) => o.name === r.name);
      if (before && before.type !== r.type)
        problems.push(
          `[[registries]] "${r.name}" type cannot change while hub runs (its cache holds ${before.type} files); restart to apply`,
        );
    }
    try {
      chooseLocalStore(d.others, next.registries);
    } catch (e) {
      problems.push((e as Error).message);
    }
    if (problems.length > 0) return refused(problems.join('; '), changes);
    if (changes.length === 0) return { outcome: { id, result: 'applied', changed_keys: [], error: null }, changes };

    // Bound again: new registries, changed ones, and every one when the network they share changed.
    const networkChanged = changes.some((c) => NETWORK_KEYS.includes(c.key));
    const changedNames = new Set(changes.filter((c) => c.path[0] === 'registries').map((c) => c.path[1]));
    const current = d.live.current.registries;
    // Groups are built again over the members in force, whatever changed: they hold their members' objects.
    const fresh = d.bind(
      next,
      next.registries.filter(
        (r) => r.mode !== 'group' && (networkChanged || changedNames.has(r.name) || !current.has(r.name)),
      ),
    );
    const registries = new Map<string, BoundRegistry>();
    for (const r of next.registries)
      if (r.mode !== 'group') registries.set(r.name, fresh.get(r.name) ?? current.get(r.name)!);
    d.regroup(next, registries);
    const retired = [...current].filter(([name, reg]) => registries.get(name) !== reg).map(([, reg]) => reg);

    const applied: typeof withReload = [];
    try {
      for (const i of withReload) {
        i.instance.reload!({ config: next, pluginConfig: next.sections[i.plugin.config!.section] });
        applied.push(i);
      }
    } catch (e) {
      for (const i of applied)
        i.instance.reload!({ config: old, pluginConfig: old.sections[i.plugin.config!.section] });
      await Promise.allSettled([...fresh.values()].map((r) => r.upstream.close()));
      return refused(
        `plugin "${withReload[applied.length]!.plugin.id}" could not apply it: ${(e as Error).message}`,
        changes,
      );
    }
    d.apply(next);
    // Requests already running keep the registries they started with; their old clients close when the last one ends.
    d.live.swap(next, registries, async () => {
      if (retired.length === 0) return;
      await d.fillsSettled();
      await Promise.allSettled(retired.map((r) => r.upstream.close()));
    });
    return { outcome: { id, result: 'applied', changed_keys: changes.map((c) => c.key), error: null }, changes };
  }

  async function local(o: { by: string | null; audit?: AuditContext }): Promise<ReplicaReload> {
    const run = queue.then(attempt, attempt);
    queue = run.catch(() => {});
    const { outcome, changes } = await run;
    d.metrics.configReloads.inc({ result: outcome.result });
    const detail = describe(outcome, changes);
    if (o.audit) Object.assign(o.audit, { detail });
    else
      d.audit.record({
        at: Date.now(),
        user_id: o.by,
        token_id: null,
        ip_address: null,
        action: 'config_reload',
        outcome: 'allowed',
        registry: null,
        package: null,
        version: null,
        status: 200,
        code: null,
        request_id: null,
        detail,
      });
    if (outcome.result === 'applied') {
      d.log.info({ replica: outcome.id, changed_keys: outcome.changed_keys }, 'configuration reloaded');
      void d.events
        .emit('config_reloaded', { replica: outcome.id, changed_keys: outcome.changed_keys, by: o.by })
        .catch((e: Error) => d.log.warn({ err: e.message }, 'config_reloaded event not recorded'));
    } else
      d.log.error(
        { replica: outcome.id, error: outcome.error },
        'configuration reload refused; the configuration in force is unchanged',
      );
    return outcome;
  }

  return {
    local,
    async everywhere(o) {
      const own = await local(o);
      const peers = (await d.reloadPeers?.(o.by)) ?? [];
      if (o.audit && peers.length > 0)
        o.audit.detail =
          `${o.audit.detail ?? ''}; other replicas: ${peers.map((p) => `${p.id} ${p.result}`).join(', ')}`.slice(
            0,
            DETAIL_CHARS,
          );
      return { replicas: [own, ...peers] };
    },
  };
}

/** The audit row's detail: the result and each changed key with its old and new value (secrets masked). */
function describe(outcome: ReplicaReload, changes: readonly KeyChange[]): string {
  const keys = changes.map((c) => `${c.key}: ${show(c.before)} -> ${show(c.after)}`).join('; ');
  const text =
    outcome.result === 'applied'
      ? `applied${keys ? `: ${keys}` : ': no key changed'}`
      : `refused: ${outcome.error ?? ''}${keys ? ` (changes: ${keys})` : ''}`;
  return text.length > DETAIL_CHARS ? `${text.slice(0, DETAIL_CHARS - 1)}…` : text;
}

const show = (v: unknown): string => (v === undefined ? '(unset)' : JSON.stringify(v));
