import { probeAnswer, type ProbeLadder, type RequestContext } from '@hub/contract';
import { parseId, type ExtensionId } from './names.js';

/** The gallery's download path for one version (packages/kind-vsix/README.md). */
export const vspackagePath = (id: ExtensionId, version: string): string =>
  `_apis/public/gallery/publishers/${encodeURIComponent(id.publisher)}/vsextensions/${encodeURIComponent(id.extension)}/${encodeURIComponent(version)}/vspackage`;

export const marketplaceVsixUrl = (rc: RequestContext, id: ExtensionId, version: string): string =>
  `${rc.registry.upstream}/${vspackagePath(id, version)}`;

/**
 * The gallery's listing is a POST (`extensionquery`), which the runtime's upstream client cannot send
 * (GET and HEAD only), so the ladder has one rung: a HEAD of each version's vspackage.
 */
export const probe: ProbeLadder = async (pc, name, versions) => {
  const id = parseId(name);
  const out = [];
  for (const version of versions) {
    if (!id) {
      out.push({ version, answer: 'inconclusive' as const, rung: 'version', detail: 'not an extension id' });
      continue;
    }
    try {
      const res = await pc.upstream.request(`${pc.registry.upstream}/${vspackagePath(id, version)}`, {
        method: 'HEAD',
      });
      res.body.destroy();
      out.push({
        version,
        answer: probeAnswer(res.status),
        rung: 'version',
        detail: `vspackage answered ${res.status}`,
      });
    } catch (e) {
      out.push({ version, answer: 'inconclusive' as const, rung: 'version', detail: (e as Error).message });
    }
  }
  return out;
};
