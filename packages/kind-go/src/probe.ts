import {
  probeAnswer,
  probeFetch,
  probeListing,
  type NameProbe,
  type ProbeLadder,
  type ProbeResult,
} from '@hub/contract';
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
    out.push({
      version,
      answer: probeAnswer(info.status),
      rung: 'version',
      detail: `.info answered ${info.status || 'nothing'}`,
    });
  }
  return out;
};

/**
 * Whether the upstream has the module (decision 0043): `@v/list` answers, or (a module of pseudo-versions only
 * lists nothing) `@latest` does.
 */
export const nameProbe: NameProbe<GoConfig> = async (pc, name) => {
  const base = `${pc.registry.upstream}/${escapePath(name)}/@v/`;
  const list = await probeFetch(pc.upstream, `${base}list`, { maxBytes: MAX_PROBE_BYTES });
  if (list.status >= 200 && list.status < 300 && list.body.toString('utf8').trim() !== '') return 'present';
  const latest = await probeListing(pc.upstream, `${pc.registry.upstream}/${escapePath(name)}/@latest`);
  return latest === 'absent' && probeAnswer(list.status) === 'inconclusive' ? 'inconclusive' : latest;
};
