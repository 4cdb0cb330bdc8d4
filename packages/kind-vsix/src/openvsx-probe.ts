import {
  probeAnswer,
  probeFetch,
  type ProbeAnswer,
  type ProbeContext,
  type ProbeLadder,
  type ProbeResult,
} from '@hub/contract';
import { apiPath } from './openvsx-api.js';
import { parseId, type ExtensionId } from './names.js';

const MAX_DOC = 8 * 1024 * 1024;

/** Never throws: a failure is status 0 with its `error`. */
async function getJson(
  pc: ProbeContext,
  url: string,
): Promise<{ status: number; doc?: Record<string, unknown>; error?: string }> {
  const res = await probeFetch(pc.upstream, url, { headers: { accept: 'application/json' }, maxBytes: MAX_DOC });
  if (res.status !== 200) return { status: res.status, error: res.error };
  try {
    return { status: 200, doc: JSON.parse(res.body.toString('utf8')) as Record<string, unknown> };
  } catch {
    return { status: 200 };
  }
}

/** Per-version rung: `GET /api/<ns>/<ext>/<version>` answers 404 for a version that is gone. */
async function perVersion(pc: ProbeContext, id: ExtensionId, version: string): Promise<ProbeResult> {
  const r = await getJson(pc, `${pc.registry.upstream}/${apiPath(id, [version])}`);
  const answer: ProbeAnswer = r.status === 200 && !r.doc ? 'inconclusive' : probeAnswer(r.status);
  return { version, answer, rung: 'version', detail: r.error ?? `version document answered ${r.status}` };
}

/**
 * The listing (`allVersions` of `/api/<ns>/<ext>`) first; a version it does not name is confirmed by
 * its own document before it counts as absent (the listing may omit versions of other target platforms).
 */
export const probe: ProbeLadder = async (pc, name, versions) => {
  const id = parseId(name);
  if (!id)
    return versions.map((version) => ({
      version,
      answer: 'inconclusive',
      rung: 'listing',
      detail: 'not an extension id',
    }));
  let listing: Record<string, unknown> | undefined;
  const r = await getJson(pc, `${pc.registry.upstream}/${apiPath(id)}`);
  if (r.status === 404 || r.status === 410)
    return versions.map((version) => ({
      version,
      answer: 'absent',
      rung: 'listing',
      detail: `listing answered ${r.status}`,
    }));
  const all = r.doc?.allVersions;
  if (all && typeof all === 'object') listing = all as Record<string, unknown>;
  const out: ProbeResult[] = [];
  for (const version of versions) {
    if (listing && Object.hasOwn(listing, version)) out.push({ version, answer: 'present', rung: 'listing' });
    else out.push(await perVersion(pc, id, version));
  }
  return out;
};
