import { iso } from '@hub/runtime';

/** A flag as stored. */
export interface FlagRow {
  id: number;
  source: string;
  external_id: string;
  registry: string;
  package_name: string;
  version: string | null;
  version_range: string | null;
  kind: string;
  effect: string;
  summary: string | null;
  state: 'active' | 'tombstone';
  raised_at: number | string;
  updated_at: number | string;
  lifted_at: number | string | null;
  raise_signed_at?: number | string | null;
  lift_signed_at?: number | string | null;
}

export function flagJson(f: FlagRow) {
  return {
    source: f.source,
    external_id: f.external_id,
    registry: f.registry,
    package_name: f.package_name,
    version: f.version,
    version_range: f.version_range,
    kind: f.kind,
    effect: f.effect,
    summary: f.summary,
    state: f.state,
    raised_at: iso(f.raised_at),
    lifted_at: iso(f.lifted_at),
  };
}
