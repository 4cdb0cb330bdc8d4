import { errors, type RequestContext } from '@hub/contract';
import { artifactDir, isSnapshot, splitName } from './layout.js';

/**
 * The cool-down (`[registries.security] min_release_age_secs`). A Maven repository dates files, not
 * versions: a version's publish time is the `Last-Modified` of its POM (`<artifact>-<version>.pom`), which
 * the upstream answers to a HEAD. `lastUpdated` of maven-metadata.xml is not used: it dates the newest
 * change to the whole artifact, not any one version.
 */
export const coolDown = (rc: RequestContext): number => rc.registry.minReleaseAgeSecs ?? 0;

/** A POM's Last-Modified, by registry and URL: a released version's POM never changes. Bounded, oldest dropped first. */
const known = new Map<string, Date>();
const MAX_KNOWN = 20_000;

const pomUrl = (rc: RequestContext, name: string, version: string): string | null => {
  const ga = splitName(name);
  if (!ga) return null;
  const path = `${artifactDir(ga.group, ga.artifact)}/${version}/${ga.artifact}-${version}.pom`;
  return `${rc.registry.upstream}/${path.split('/').map(encodeURIComponent).join('/')}`;
};

/**
 * When the upstream says `version`'s POM was last modified; null when it has no POM or no valid Last-Modified.
 * A SNAPSHOT is never dated: it changes in place, so no age can vouch for what it is now.
 */
async function pomTime(rc: RequestContext, name: string, version: string): Promise<Date | null> {
  const url = pomUrl(rc, name, version);
  if (!url || isSnapshot(version)) return null;
  const key = `${rc.registry.name}\0${url}`;
  const hit = known.get(key);
  if (hit) return hit;
  const res = await rc.upstream.request(url, { method: 'HEAD', headers: { accept: '*/*' } });
  res.body.destroy();
  if (res.status === 404 || res.status === 410) return null;
  if (res.status !== 200) throw errors.upstream(`upstream answered ${res.status} for the POM of ${name} ${version}`);
  const at = Date.parse(res.headers['last-modified'] ?? '');
  if (!Number.isFinite(at)) return null;
  if (known.size >= MAX_KNOWN) known.delete(known.keys().next().value!);
  known.set(key, new Date(at));
  return new Date(at);
}

const oldEnough = (at: Date | null, secs: number): boolean => at !== null && Date.now() - at.getTime() >= secs * 1000;

/**
 * Of the upstream's `versions` of `name`, those the cool-down keeps out of listings: too new, or not provably
 * old enough (no POM date, or the HEAD failed). At most 8 HEADs at a time. None without a cool-down.
 */
export async function tooNew(rc: RequestContext, name: string, versions: readonly string[]): Promise<Set<string>> {
  const out = new Set<string>();
  const secs = coolDown(rc);
  if (secs === 0) return out;
  for (let i = 0; i < versions.length; i += 8)
    await Promise.all(
      versions.slice(i, i + 8).map(async (v) => {
        if (!oldEnough(await pomTime(rc, name, v).catch(() => null), secs)) out.add(v);
      }),
    );
  return out;
}

/** The publish time the runtime checks the cool-down against (none without one); a version without one is refused here. */
export async function coolDownTime(
  rc: RequestContext,
  name: string,
  version: string | undefined,
): Promise<Date | undefined> {
  if (coolDown(rc) === 0) return undefined;
  const at = version ? await pomTime(rc, name, version) : null;
  if (!at)
    throw errors.packageBlocked(
      `${name} ${version ?? ''} has no Last-Modified on its upstream POM${version && isSnapshot(version) ? ' (a SNAPSHOT is never dated)' : ''}, so it cannot be shown to be older than the registry's min_release_age_secs (${coolDown(rc)})`,
    );
  return at;
}
