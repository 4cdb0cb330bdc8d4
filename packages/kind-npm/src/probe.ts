import { probeAnswer, probeFetch, probeListing, type NameProbe, type ProbeLadder } from '@hub/contract';
import { CORGI } from './packument.js';
import { upstreamPath } from './names.js';

/** The most a probe reads of a packument: the runtime's default max_metadata_bytes. */
export const MAX_PACKUMENT_BYTES = 64 * 1024 * 1024;

/** One rung: the packument lists every version that exists; a 404 packument means none do. */
export const probe: ProbeLadder = async (pc, name, versions) => {
  const all = (answer: 'present' | 'absent' | 'inconclusive', detail?: string) =>
    versions.map((version) => ({ version, answer, rung: 'listing', detail }));
  const res = await probeFetch(pc.upstream, `${pc.registry.upstream}/${upstreamPath(name)}`, {
    headers: { accept: CORGI },
    maxBytes: MAX_PACKUMENT_BYTES,
  });
  if (res.error !== undefined) return all('inconclusive', res.error);
  const answer = probeAnswer(res.status);
  if (answer !== 'present') return all(answer, `packument answered ${res.status}`);
  let doc: { versions?: Record<string, unknown> };
  try {
    doc = JSON.parse(res.body.toString('utf8')) as typeof doc;
  } catch {
    return all('inconclusive', 'packument was not JSON');
  }
  if (!doc.versions || typeof doc.versions !== 'object') return all('inconclusive', 'packument has no versions');
  return versions.map((version) => ({
    version,
    answer: doc.versions![version] ? 'present' : 'absent',
    rung: 'listing',
  }));
};

/** Whether the upstream has the name: its packument answers (decision 0043). */
export const nameProbe: NameProbe = (pc, name) =>
  probeListing(pc.upstream, `${pc.registry.upstream}/${upstreamPath(name)}`, { accept: CORGI });
