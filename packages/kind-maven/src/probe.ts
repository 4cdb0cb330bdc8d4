import {
  probeAnswer,
  probeFetch,
  probeListing,
  type NameProbe,
  type ProbeContext,
  type ProbeLadder,
  type ProbeResult,
} from '@hub/contract';
import { artifactDir, isSnapshot, splitName } from './layout.js';
import { checkMetadata, listedVersions } from './metadata.js';

/** packages/audit/README.md: at most this many versions are asked for one by one per package per sweep. */
export const MAX_VERSION_PROBES = 25;
const MAX_LISTING_BYTES = 8 * 1024 * 1024;

const url = (pc: ProbeContext, path: string) =>
  `${pc.registry.upstream}/${path.split('/').map(encodeURIComponent).join('/')}`;

/** The versions the upstream's maven-metadata.xml lists, or null when it has none we can read. */
async function listing(pc: ProbeContext, dir: string): Promise<Set<string> | null> {
  const { status, body } = await probeFetch(pc.upstream, url(pc, `${dir}/maven-metadata.xml`), {
    maxBytes: MAX_LISTING_BYTES,
  });
  if (status !== 200 || checkMetadata(body)) return null;
  return new Set(listedVersions(body.toString('utf8')));
}

/** HEAD on the version's POM (a SNAPSHOT's own maven-metadata.xml). 5xx, 429, timeouts and HTML answers decide nothing. */
async function headVersion(pc: ProbeContext, dir: string, artifact: string, version: string): Promise<ProbeResult> {
  const path = isSnapshot(version)
    ? `${dir}/${version}/maven-metadata.xml`
    : `${dir}/${version}/${artifact}-${version}.pom`;
  const res = await probeFetch(pc.upstream, url(pc, path), { method: 'HEAD' });
  if (res.error !== undefined) return { version, answer: 'inconclusive', rung: 'version', detail: res.error };
  const html = /^text\/html\b/i.test(res.contentType ?? '');
  const answer = res.status === 200 && html ? 'inconclusive' : probeAnswer(res.status);
  return {
    version,
    answer,
    rung: 'version',
    detail: `HEAD ${path.slice(dir.length + 1)} answered ${res.status}${html ? ' with an HTML page' : ''}`,
  };
}

/**
 * The listing first: a version maven-metadata.xml lists is present. A repository need not publish
 * metadata (and a listing can lag), so any version it does not list is asked for with a HEAD on its
 * POM, at most 25 per package; the rest stay inconclusive until the next sweep.
 */
export const probe: ProbeLadder = async (pc, name, versions) => {
  const c = splitName(name);
  if (!c)
    return versions.map((version) => ({
      version,
      answer: 'inconclusive',
      rung: 'listing',
      detail: `"${name}" is not group:artifact`,
    }));
  const dir = artifactDir(c.group, c.artifact);
  const listed = await listing(pc, dir);
  const out: ProbeResult[] = [];
  let asked = 0;
  for (const version of versions) {
    if (listed?.has(version)) out.push({ version, answer: 'present', rung: 'listing' });
    else if (asked >= MAX_VERSION_PROBES)
      out.push({
        version,
        answer: 'inconclusive',
        rung: 'version',
        detail: `more than ${MAX_VERSION_PROBES} versions to ask for`,
      });
    else {
      asked++;
      out.push(await headVersion(pc, dir, c.artifact, version));
    }
  }
  return out;
};

/** Whether the upstream has the artifact (group:artifact): its maven-metadata.xml answers (decision 0043). */
export const nameProbe: NameProbe = async (pc, name) => {
  const c = splitName(name);
  return c
    ? probeListing(pc.upstream, url(pc, `${artifactDir(c.group, c.artifact)}/maven-metadata.xml`))
    : 'inconclusive';
};
