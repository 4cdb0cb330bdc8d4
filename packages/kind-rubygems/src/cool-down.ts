/**
 * The cool-down (`[registries.security] min_release_age_secs`): upstream versions published less than that
 * long ago leave the listings hub serves, and their files are refused. The compact index and the specs
 * indexes carry no time, so the publish time is the upstream versions API's `created_at`
 * (`api/v1/versions/<gem>.json`, one entry per version and platform). It is read only when the registry
 * has a cool-down, through the metadata cache (once per TTL, concurrent readers coalesced).
 *
 * A version the versions API does not give a time for cannot be shown to be old enough: it is left out and
 * refused. A versions API that cannot be read fails the request (502, naming it): hub never guesses an age.
 */
import { errors, isHubError, type HubError, type RequestContext } from '@hub/contract';
import { apiToken, versionsApiSpec, type ApiVersion } from './listing.js';

/** The registry's cool-down in seconds (0: none). */
export const coolDown = (rc: RequestContext): number => rc.registry.minReleaseAgeSecs ?? 0;

/** `created_at` per version token; null for an entry without a valid one. */
export function parseCreatedAt(buf: Buffer): Map<string, Date | null> {
  const out = new Map<string, Date | null>();
  const doc = JSON.parse(buf.toString('utf8')) as unknown;
  if (!Array.isArray(doc)) return out;
  for (const v of doc as ApiVersion[]) {
    const token = apiToken(v);
    if (token === null) continue;
    const at = typeof v.created_at === 'string' ? Date.parse(v.created_at) : NaN;
    out.set(token, Number.isFinite(at) ? new Date(at) : null);
  }
  return out;
}

/** Why the publish times of `name` cannot be had, as the answer to the client. */
function unreadable(rc: RequestContext, name: string, e: HubError): HubError {
  const cause = e.code === 'not_found' ? 'the upstream has no such document (404)' : e.message;
  return errors.upstream(
    `the registry's min_release_age_secs (${coolDown(rc)}) needs the publish times of ${name} from the upstream's api/v1/versions/${name}.json, which cannot be read: ${cause}`,
  );
}

export type PublishTimes = Promise<ReadonlyMap<string, Date | null>>;

/** The upstream's publish time of each version of `name`; a 502 naming the versions API when it cannot be read. */
async function publishTimes(rc: RequestContext, name: string): PublishTimes {
  try {
    const doc = await rc.metadata(versionsApiSpec(rc, name));
    return doc.derive('created-at', parseCreatedAt);
  } catch (e) {
    throw isHubError(e) ? unreadable(rc, name, e) : e;
  }
}

const tooNew = (at: Date | null | undefined, secs: number, now: number): boolean =>
  !at || now - at.getTime() < secs * 1000;

/**
 * Starts reading the publish times of `name` (null without a cool-down), to run alongside the fetch of its
 * listing rather than after it. A failure is reported by the `coolingDown` it is given to.
 */
export function readPublishTimes(rc: RequestContext, name: string): PublishTimes | null {
  if (coolDown(rc) === 0) return null;
  const times = publishTimes(rc, name);
  times.catch(() => undefined);
  return times;
}

/**
 * Of the upstream's version tokens of `name`, those the cool-down leaves out of listings: too new, or of
 * unknown age. Empty, and nothing read, without a cool-down or without tokens. `started`: the times'
 * read begun by `readPublishTimes`.
 */
export async function coolingDown(
  rc: RequestContext,
  name: string,
  tokens: Iterable<string>,
  started?: PublishTimes | null,
): Promise<Set<string>> {
  const secs = coolDown(rc);
  const list = secs > 0 ? [...tokens] : [];
  if (list.length === 0) return new Set();
  const times = await (started ?? publishTimes(rc, name));
  const now = Date.now();
  return new Set(list.filter((t) => tooNew(times.get(t), secs, now)));
}

/**
 * The publish time the runtime checks a download against (undefined without a cool-down); a version the
 * versions API gives no time for is refused here.
 */
export async function coolDownTime(rc: RequestContext, name: string, token: string): Promise<Date | undefined> {
  if (coolDown(rc) === 0) return undefined;
  const at = (await publishTimes(rc, name)).get(token);
  if (!at)
    throw errors.packageBlocked(
      `${name} ${token} has no created_at in the upstream's versions API, so it cannot be shown to be older than the registry's min_release_age_secs (${coolDown(rc)})`,
    );
  return at;
}
