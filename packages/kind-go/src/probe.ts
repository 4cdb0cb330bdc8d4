import { probeAnswer, type ProbeLadder, type ProbeResult } from '@hub/runtime';
import { escapePath } from './module-path.js';
import type { GoConfig } from './routes.js';

/**
 * Listing first (`/@v/list`); a version missing from it (pseudo-versions never are listed) is asked
 * for directly (`/@v/<v>.info`). Only 404/410 count as absent.
 */
export const probe: ProbeLadder<GoConfig> = async (pc, name, versions) => {
  const base = `${pc.registry.upstream}/${escapePath(name)}/@v/`;
  const ask = async (url: string) => {
    try {
      const res = await pc.upstream.request(url);
      const chunks: Buffer[] = [];
      for await (const c of res.body) chunks.push(c as Buffer);
      return { status: res.status, body: Buffer.concat(chunks).toString('utf8') };
    } catch {
      return { status: 0, body: '' };
    }
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
