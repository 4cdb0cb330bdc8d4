import { probeAnswer, probeFetch, type ProbeLadder, type ProbeResult } from '@hub/contract';
import { escapePath } from './module-path.js';
import type { GoConfig } from './routes.js';

/** The most a probe reads of a version list or an .info document. */
export const MAX_PROBE_BYTES = 8 * 1024 * 1024;

/**
 * Listing first (`/@v/list`); a version missing from it (pseudo-versions never are listed) is asked
 * for directly (`/@v/<v>.info`). Only 404/410 count as absent.
 */
export const probe: ProbeLadder<GoConfig> = async (pc, name, versions) => {
  const base = `${pc.registry.upstream}/${escapePath(name)}/@v/`;
  const ask = async (url: string) => {
    const r = await probeFetch(pc.upstream, url, { maxBytes: MAX_PROBE_BYTES });
    return { status: r.status, body: r.body.toString('utf8') };
  };
  const list = await ask(`${base}list`);
  const listAnswer = probeAnswer(list.status);
  if (listAnswer === 'absent') return versions.map((version) => ({ version, answer: 'absent', rung: 'listing' }));
  const inList = new Set(listAnswer === 'present' ? list.body.split('\n').map((l) => l.trim()) : []);
  const out: ProbeResult[] = [];
  for (const version of versions) {
    if (inList.has(version)) {
      out.push({ version, answer: 'present', rung: 'listing' });
      continue;
    }
    const info = await ask(`${base}${escapePath(version)}.info`);
    out.push({ version, answer: probeAnswer(info.status), rung: 'version', detail: `.info answered ${info.status || 'nothing'}` });
  }
  return out;
};
