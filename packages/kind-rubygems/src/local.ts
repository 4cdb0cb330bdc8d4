/**
 * Gems published here (`rc.local`), as the index documents list them: every listing of a published
 * gem is generated from the database, never fetched.
 *
 * Where a gem's listing comes from, by mode: `proxy` the upstream; `local` the database; `hybrid` the
 * database, plus the upstream unless the name is owned here (`rc.local.ownsName`, true by default for a
 * published name: the upstream is then never asked, so a public gem of the same name is never served).
 * When both list a version token, the local one wins.
 *
 * The documents that list every gem (`/versions`, `/names`, the specs indexes) list `rc.local.names()`.
 */
import type { RequestContext } from '@hub/contract';
import type { InfoEntry } from './compact-index.js';
import { requirementText, tokenOf, type GemMeta } from './gem-package.js';

/** Past this many published names the all-gems documents leave the rest out (each name costs queries). */
export const MAX_LOCAL_NAMES = 5000;

/** A listing entry; `local` when the version was published here. */
export type ListingEntry = InfoEntry & { local?: GemMeta };

/** Every gem name published here, or [] in a proxy registry. */
export async function localNames(rc: RequestContext): Promise<string[]> {
  if (rc.registry.mode === 'proxy') return [];
  return (await rc.local.names()).slice(0, MAX_LOCAL_NAMES);
}

/** The versions of `name` published here and not yanked, oldest first. */
export async function localGems(rc: RequestContext, name: string): Promise<GemMeta[]> {
  if (rc.registry.mode === 'proxy') return [];
  return (await rc.local.versions(name)).filter((v) => !v.yanked && v.meta).map((v) => v.meta as GemMeta);
}

/** Whether the upstream may be asked about `name`: never in `local`, nor in `hybrid` for a name owned here. */
export async function upstreamMayList(rc: RequestContext, name: string): Promise<boolean> {
  if (rc.registry.mode === 'proxy') return true;
  if (rc.registry.mode === 'local') return false;
  return !(await rc.local.ownsName(name));
}

/** The compact index line: `<token> <dep>:<req>&<req>,…|checksum:<sha256>,ruby:<req>[,rubygems:<req>]`. */
export function infoLine(m: GemMeta): string {
  const deps = m.dependencies
    .filter((d) => d.type === 'runtime')
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((d) => `${d.name}:${requirementText(d.requirement)}`);
  const meta = [`checksum:${m.sha256}`, `ruby:${requirementText(m.requiredRuby)}`];
  const rubygems = requirementText(m.requiredRubygems);
  if (rubygems !== '>= 0') meta.push(`rubygems:${rubygems}`);
  return `${tokenOf(m)} ${deps.join(',')}|${meta.join(',')}`;
}

export const entryOf = (m: GemMeta): ListingEntry => ({
  token: tokenOf(m),
  sha256: m.sha256,
  deps: m.dependencies
    .filter((d) => d.type === 'runtime')
    .map((d) => ({ name: d.name, requirements: requirementText(d.requirement, ', ') })),
  local: m,
});
