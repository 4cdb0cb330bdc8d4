import { probeAnswer, probeFetch, type ProbeLadder, type ProbeResult } from '@hub/contract';
import { isIndexPath, type PathKindTable } from './classify.js';
import { indexPatterns, type PathConfig } from './config.js';
import { isFilePath, upstreamUrl } from './paths.js';

/**
 * One rung: HEAD each held file's upstream path. Index-like files change by design (and by-hash
 * blobs are dropped when superseded), so they answer `not_audited` and never count as disappeared.
 */
export function probeFor(table: PathKindTable): ProbeLadder<PathConfig> {
  return async (pc, _name, versions) => {
    const extra = indexPatterns(pc.registry.config);
    const out: ProbeResult[] = [];
    for (const version of versions) {
      if (!isFilePath(version)) {
        out.push({ version, answer: 'inconclusive', rung: 'file', detail: 'not a file path' });
        continue;
      }
      if (isIndexPath(table, version, extra) || table.digestOf?.(version)) {
        out.push({ version, answer: 'not_audited', rung: 'file', detail: 'index-like file; not audited' });
        continue;
      }
      const res = await probeFetch(pc.upstream, upstreamUrl(pc.registry.upstream, version), { method: 'HEAD' });
      out.push({
        version,
        answer: probeAnswer(res.status),
        rung: 'file',
        detail: res.error ?? `HEAD answered ${res.status}`,
      });
    }
    return out;
  };
}
