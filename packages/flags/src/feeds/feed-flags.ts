/** One OSV record as the flags a feed wants raised: per affected package, per hub registry, per range. */
import { createHash } from 'node:crypto';
import { canonicalCoordinate, type RegistryRef } from '@hub/admin-kit';
import { HubError } from '@hub/runtime';
import type { VersionMatchers } from '../version-match.js';
import type { FlagRow } from '../flag-json.js';
import type { AdvisoryFeedConfig } from './feed-config.js';
import { osvReference, osvSeverity, type OsvRecord } from './osv-record.js';
import { osvIntervals, rangesFor } from './osv-ranges.js';
import { SEVERITIES } from '../routes/push.js';

/** A flag as a feed wants it stored (the flags table's columns a push sets, plus the advisory's aliases). */
export type FeedFlag = Required<
  Pick<
    FlagRow,
    | 'external_id'
    | 'registry'
    | 'package_name'
    | 'version'
    | 'version_range'
    | 'kind'
    | 'effect'
    | 'summary'
    | 'severity'
    | 'reference_url'
    | 'fixed_version'
    | 'aliases'
  >
>;

/** Flags one record may raise; a record naming more is cut here and the cut counted. */
export const MAX_FLAGS_PER_RECORD = 1000;

/** The registries an OSV ecosystem maps to: `ecosystems` keys are OSV names (`Debian:12` also tries `Debian`); values name registries or types. */
export function ecosystemTargets(
  feed: AdvisoryFeedConfig,
  registries: ReadonlyArray<{ name: string; type: string; mode?: string }>,
  ref: (name: string) => RegistryRef,
) {
  const memo = new Map<string, RegistryRef[]>();
  return (ecosystem: string): RegistryRef[] => {
    const hit = memo.get(ecosystem);
    if (hit) return hit;
    const targets = feed.ecosystems[ecosystem] ?? feed.ecosystems[ecosystem.split(':')[0]!] ?? [];
    const names = new Set<string>();
    for (const t of targets) {
      const byName = registries.find((r) => r.name === t);
      // A type names its proxy, local and hybrid registries; a group serves its members' flags already.
      for (const r of byName ? [byName] : registries.filter((x) => x.type === t && x.mode !== 'group'))
        names.add(r.name);
    }
    const out = [...names].map(ref);
    memo.set(ecosystem, out);
    return out;
  };
}

/** `<advisory id>:<registry>:<package>` (then `#2`, `#3` for further ranges); a hash of it when past 255 characters. */
function externalId(id: string, registry: string, name: string, n: number): string {
  const suffix = n === 0 ? '' : `#${n + 1}`;
  const plain = `${id}:${registry}:${name}`;
  return plain.length + suffix.length <= 255
    ? plain + suffix
    : `${id}:${createHash('sha256').update(plain).digest('hex').slice(0, 32)}${suffix}`;
}

export interface RecordContext {
  feed: AdvisoryFeedConfig;
  targets: (ecosystem: string) => RegistryRef[];
  ranges: VersionMatchers;
  /** Something of the record hub could not turn into a flag (a range the kind does not parse, a bad name). */
  skipped(why: string): void;
}

/** The flags this record wants; none for a withdrawn record, or one below the feed's `min_severity`. */
export function flagsOfRecord(r: OsvRecord, o: RecordContext): FeedFlag[] {
  if (r.withdrawn !== undefined) return [];
  const severity = osvSeverity(r);
  if (
    o.feed.min_severity &&
    severity &&
    SEVERITIES.indexOf(severity as never) < SEVERITIES.indexOf(o.feed.min_severity)
  )
    return [];
  const base = {
    kind: r.id.startsWith('MAL-') ? 'malware' : 'vulnerability',
    effect: o.feed.effect,
    summary: (r.summary || r.details?.split('\n')[0] || '').slice(0, 4000) || null,
    severity,
    reference_url: osvReference(r),
    aliases: r.aliases?.length ? r.aliases.join(' ').slice(0, 1024) : null,
  };
  const out: FeedFlag[] = [];
  const counts = new Map<string, number>();
  const add = (
    reg: RegistryRef,
    name: string,
    version: string | null,
    versionRange: string | null,
    fixed: string | null,
  ) => {
    if (out.length >= MAX_FLAGS_PER_RECORD) return o.skipped(`${r.id}: more than ${MAX_FLAGS_PER_RECORD} flags`);
    const key = `${reg.name}\0${name}`;
    const n = counts.get(key) ?? 0;
    counts.set(key, n + 1);
    out.push({
      ...base,
      external_id: externalId(r.id, reg.name, name, n),
      registry: reg.name,
      package_name: name,
      version,
      version_range: versionRange,
      fixed_version: fixed,
    });
  };
  for (const a of r.affected ?? []) {
    if (!a.package) continue;
    const intervals = osvIntervals(a);
    const fixed = intervals.find((i) => i.fixed !== null)?.fixed ?? null;
    for (const reg of o.targets(a.package.ecosystem)) {
      let name: string;
      try {
        name = canonicalCoordinate(reg, a.package.name, undefined, undefined).name;
      } catch (e) {
        if (!(e instanceof HubError)) throw e;
        o.skipped(`${r.id}: ${e.message}`);
        continue;
      }
      const good = rangesFor(reg.kind.id, intervals).filter((text) => {
        const m = o.ranges.compile(reg.name, text);
        if (typeof m === 'string') o.skipped(`${r.id}: ${text.slice(0, 64)} is not a ${reg.kind.id} range: ${m}`);
        return typeof m !== 'string';
      });
      for (const text of good) add(reg, name, null, text, fixed);
      if (good.length) continue;
      // No range the kind takes: the record's own list of versions, one flag each.
      for (const v of a.versions ?? []) {
        try {
          add(reg, name, canonicalCoordinate(reg, name, v, undefined).version ?? v, null, fixed);
        } catch (e) {
          if (!(e instanceof HubError)) throw e;
          o.skipped(`${r.id}: ${e.message}`);
        }
      }
    }
  }
  return out;
}
