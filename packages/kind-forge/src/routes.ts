import { errors, looksLikeHtml, type KindRoute, type RequestContext } from '@hub/contract';
import type { Forge, ForgeAsset } from './forges.js';
import { explainRefusal, refusedStatus } from './rate-limit.js';

/** An error page where a binary asset was expected; an asset that is itself HTML is let through. */
function checkHead(file: string) {
  return (head: Buffer): string | null =>
    /\.html?$/i.test(file) || !looksLikeHtml(head) ? null : 'upstream sent an HTML page instead of the asset';
}

async function serveAsset(rc: RequestContext, forge: Forge, a: ForgeAsset) {
  // Absent in local mode, where rc.artifact serves only what was published and never calls source().
  const url = `${rc.registry.upstream ?? ''}/${a.upstreamPath}`;
  try {
    return await rc.artifact({
      key: a.upstreamPath,
      coordinate: { name: a.project, version: a.tag },
      contentType: 'application/octet-stream',
      checkHead: checkHead(a.file),
      // The forge's redirect to its storage host is followed by the upstream client, hop by hop:
      // upstream_auth stays on the forge's origin and forbidden addresses are refused there.
      source: async () => ({ url }),
    });
  } catch (e) {
    const status = refusedStatus(e);
    const explained = status && (await explainRefusal(rc, forge, url, status));
    throw explained || e;
  }
}

/** One KindRoute per path shape in the forge's table; the recognised asset travels in `params`. */
export function forgeRoutes(forge: Forge): KindRoute[] {
  return forge.routes.map((r) => ({
    id: r.id,
    match(segments) {
      const a = r.match(segments);
      if (!a) return null;
      return { coordinate: { name: a.project, version: a.tag }, params: { ...a } };
    },
    handle(rc, m) {
      const p = m.params;
      if (!p?.project || !p.tag || !p.file || !p.upstreamPath) throw errors.internal('route match lost its asset');
      return serveAsset(rc, forge, { project: p.project, tag: p.tag, file: p.file, upstreamPath: p.upstreamPath });
    },
  }));
}
