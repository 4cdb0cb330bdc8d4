import { probeAnswer, probeFetch, probeListing, type NameProbe, type ProbeLadder } from '@hub/contract';
import { isProjectName, normalizeName } from './names.js';
import { checkPage, parsePage, UPSTREAM_ACCEPT } from './project-page.js';

const MAX_PAGE_BYTES = 64 * 1024 * 1024;

/**
 * The project page is the listing and the only rung: a held version is present when the page still
 * has a file of it, absent when the page lacks it or the project answers 404/410. A 5xx, a timeout, a
 * body past the cap or a page that is not one (an HTML error page with 200) is inconclusive.
 */
export const probe: ProbeLadder = async (pc, name, versions) => {
  const up = pc.registry.upstream;
  const inconclusive = (detail: string) =>
    versions.map((version) => ({ version, answer: 'inconclusive' as const, rung: 'listing', detail }));
  if (!up || !isProjectName(name)) return inconclusive('not a project name');
  const project = normalizeName(name);
  const url = `${up}/${encodeURIComponent(project)}/`;
  const r = await probeFetch(pc.upstream, url, { headers: { accept: UPSTREAM_ACCEPT }, maxBytes: MAX_PAGE_BYTES });
  if (r.status !== 200) {
    const answer = probeAnswer(r.status);
    const detail = `project page answered ${r.status || r.error || 'nothing'}`;
    return versions.map((version) => ({
      version,
      answer: answer === 'present' ? 'inconclusive' : answer,
      rung: 'listing',
      detail,
    }));
  }
  const bad = checkPage(project, r.body, r.contentType);
  if (bad) return inconclusive(`project page unreadable: ${bad}`);
  const listed = new Set(parsePage(project, r.body, r.contentType, url).files.map((f) => f.version.toLowerCase()));
  return versions.map((version) => ({
    version,
    answer: listed.has(version.toLowerCase()) ? 'present' : 'absent',
    rung: 'listing',
    detail: 'project page',
  }));
};

/** Whether the upstream has the project: its project page answers (decision 0043). */
export const nameProbe: NameProbe = async (pc, name) =>
  pc.registry.upstream && isProjectName(name)
    ? probeListing(pc.upstream, `${pc.registry.upstream}/${encodeURIComponent(normalizeName(name))}/`, {
        accept: UPSTREAM_ACCEPT,
      })
    : 'inconclusive';
