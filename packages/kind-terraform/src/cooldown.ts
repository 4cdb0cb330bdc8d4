import { errors, isHubError } from '@hub/contract';
import { coordinateName, providerPath, type Provider } from './names.js';
import { parsedVersions, upstreamBase, versionsDoc, type Rc, type VersionsDoc } from './registry-docs.js';

/**
 * The cool-down (`[registries.security] min_release_age_secs`). The registry protocol's documents carry no
 * publish time; it is the `published_at` of the version's entry in `/versions` where an upstream writes one, else
 * of the registry API's provider version document `<upstream>/v1/providers/<ns>/<type>/<version>`.
 */
export const coolDown = (rc: Rc): number => rc.registry.minReleaseAgeSecs ?? 0;

/** A provider version document never changes its `published_at`: read once and kept. */
const VERSION_DOC_TTL_SECS = 30 * 86400;

const timeOf = (v: unknown): Date | null => {
  const at = typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isFinite(at) ? new Date(at) : null;
};

/** When `v` was published, from its `/versions` entry or its provider version document; null when neither says. */
async function publishTime(
  rc: Rc,
  p: Provider,
  v: string,
  entry: VersionsDoc['versions'][number] | undefined,
): Promise<Date | null> {
  const inline = timeOf(entry?.published_at);
  if (inline) return inline;
  const doc = await rc
    .metadata({
      key: `version:${p.ns}/${p.type}/${v}`,
      url: `${upstreamBase(rc)}/${providerPath(p)}/${encodeURIComponent(v)}`,
      headers: { accept: 'application/json' },
      check: (b) => (/^\s*\{/.test(b.subarray(0, 64).toString('latin1')) ? null : 'not a JSON object'),
      ttlSecs: VERSION_DOC_TTL_SECS,
    })
    .catch((e: unknown) => {
      // An upstream without the registry API's version documents: no time.
      if (isHubError(e) && e.code === 'not_found') return null;
      throw e;
    });
  return (
    doc?.derive('published_at', (b) =>
      timeOf((JSON.parse(b.toString('utf8')) as { published_at?: unknown }).published_at),
    ) ?? null
  );
}

/** A version is old enough only when a publish time shows it; one without a time (or whose document fails) is not. */
const oldEnough = (at: Date | null, secs: number): boolean => at !== null && Date.now() - at.getTime() >= secs * 1000;

/** The versions of a listing the cool-down keeps out (none without one); at most 8 version documents asked at a time. */
export async function tooNew(
  rc: Rc,
  p: Provider,
  doc: VersionsDoc,
  skip: ReadonlySet<string> = new Set(),
): Promise<Set<string>> {
  const out = new Set<string>();
  const secs = coolDown(rc);
  if (secs === 0) return out;
  const entries = doc.versions.filter((e) => !skip.has(e.version));
  for (let i = 0; i < entries.length; i += 8)
    await Promise.all(
      entries.slice(i, i + 8).map(async (e) => {
        if (!oldEnough(await publishTime(rc, p, e.version, e).catch(() => null), secs)) out.add(e.version);
      }),
    );
  return out;
}

/** The publish time the runtime checks the cool-down against (none without one); a version without one is refused here. */
export async function coolDownTime(rc: Rc, p: Provider, v: string): Promise<Date | undefined> {
  if (coolDown(rc) === 0) return undefined;
  const entry = parsedVersions(await versionsDoc(rc, p)).versions.find((e) => e.version === v);
  const at = await publishTime(rc, p, v, entry);
  if (!at)
    throw errors.packageBlocked(
      `${coordinateName(p)} ${v} has no published_at upstream, so it cannot be shown to be older than the registry's min_release_age_secs (${coolDown(rc)})`,
    );
  return at;
}
