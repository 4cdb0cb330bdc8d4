import { probeAnswer, type ProbeLadder } from '@hub/runtime';
import { CORGI } from './packument.js';
import { upstreamPath } from './names.js';

/** One rung: the packument lists every version that exists; a 404 packument means none do. */
export const probe: ProbeLadder = async (pc, name, versions) => {
  const all = (answer: 'present' | 'absent' | 'inconclusive', detail?: string) => versions.map((version) => ({ version, answer, rung: 'listing', detail }));
  let res;
  try {
    res = await pc.upstream.request(`${pc.registry.upstream}/${upstreamPath(name)}`, { headers: { accept: CORGI } });
  } catch (e) {
    return all('inconclusive', (e as Error).message);
  }
  const answer = probeAnswer(res.status);
  if (answer !== 'present') {
    res.body.destroy();
    return all(answer, `packument answered ${res.status}`);
  }
  let doc: { versions?: Record<string, unknown> };
  try {
    const chunks: Buffer[] = [];
    for await (const c of res.body) chunks.push(c as Buffer);
    doc = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof doc;
  } catch {
    return all('inconclusive', 'packument was not JSON');
  }
  if (!doc.versions || typeof doc.versions !== 'object') return all('inconclusive', 'packument has no versions');
  return versions.map((version) => ({ version, answer: doc.versions![version] ? 'present' : 'absent', rung: 'listing' }));
};
