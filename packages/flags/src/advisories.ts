import type { Knex } from 'knex';
import type { AdvisorySource, HubAdvisory } from '@hub/runtime';
import type { FlagRow } from './flag-json.js';

/** Names per query: well under SQLite's and MySQL's placeholder limits. */
const CHUNK = 500;

/** The columns an advisory is made of. */
type AdvisoryFlag = Required<
  Pick<
    FlagRow,
    | 'source'
    | 'external_id'
    | 'package_name'
    | 'version'
    | 'version_range'
    | 'kind'
    | 'effect'
    | 'summary'
    | 'expires_at'
  >
>;

/**
 * Active flags as advisories for audit routes (`rc.advisories`): every effect, `info` included, since an
 * audit is where a developer reads them. The link is the console's incident page for the flag, on the
 * console's own origin when `[console] public_url` is set, else on the origin the request came to.
 */
export function createAdvisorySource(db: Knex, consoleOrigin: string | undefined): AdvisorySource {
  return async (registry, names, origin) => {
    const rows: AdvisoryFlag[] = [];
    const unique = [...new Set(names)];
    for (let i = 0; i < unique.length; i += CHUNK)
      rows.push(
        ...((await db('flags')
          .where({ registry, state: 'active' })
          .whereIn('package_name', unique.slice(i, i + CHUNK))
          .orderBy('id')
          .select(
            'source',
            'external_id',
            'package_name',
            'version',
            'version_range',
            'kind',
            'effect',
            'summary',
            'expires_at',
          )) as AdvisoryFlag[]),
      );
    const now = Date.now();
    // An expired flag acts as lifted.
    return rows
      .filter((f) => f.expires_at == null || Number(f.expires_at) > now)
      .map((f): HubAdvisory => ({
        id: `hub:${f.source}:${f.external_id}`,
        name: f.package_name,
        version: f.version,
        versionRange: f.version_range,
        effect: f.effect,
        kind: f.kind,
        title: f.summary || `flagged ${f.kind} by flag source ${f.source}, ${f.external_id}`,
        url: `${consoleOrigin ?? origin}/console/incident?${new URLSearchParams({ source: f.source, flag: f.external_id })}`,
      }));
  };
}
