import { iso } from '@hub/admin-kit';

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
  severity?: string | null;
  reference_url?: string | null;
  fixed_version?: string | null;
  expires_at?: number | string | null;
  requested_effect?: string | null;
  raise_signed_at?: number | string | null;
  lift_signed_at?: number | string | null;
  aliases?: string | null;
}

/** An active flag whose `expires_at` has passed acts as lifted: it refuses nothing and shows as `expired`. */
export function flagState(
  f: Pick<FlagRow, 'state' | 'expires_at'>,
  now = Date.now(),
): 'active' | 'tombstone' | 'expired' {
  return f.state === 'active' && f.expires_at != null && Number(f.expires_at) <= now ? 'expired' : f.state;
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
    severity: f.severity ?? null,
    reference_url: f.reference_url ?? null,
    fixed_version: f.fixed_version ?? null,
    expires_at: iso(f.expires_at),
    ...(f.requested_effect ? { requested_effect: f.requested_effect } : {}),
    ...(f.aliases ? { aliases: f.aliases.split(' ') } : {}),
    state: flagState(f),
    raised_at: iso(f.raised_at),
    lifted_at: iso(f.lifted_at),
  };
}
