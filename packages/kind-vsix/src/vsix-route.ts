import { errors, type KindRoute, type RequestContext, type Reply } from '@hub/contract';
import { checkedId, checkedVersion, vsixKey, type ExtensionId } from './names.js';

/** Where a kind finds the VSIX of one version upstream. */
export type VsixUrl = (rc: RequestContext, id: ExtensionId, version: string) => string;

export const VSIX_TYPE = 'application/vsix';

/** Serves one VSIX as an immutable cached artifact, gunzipped if the upstream gzipped it; the runtime verifies it is a whole zip first. */
export function vsix(rc: RequestContext, id: ExtensionId, version: string, url: VsixUrl): Promise<Reply> {
  return rc.artifact({
    key: vsixKey(id, version),
    coordinate: { name: id.name, version },
    contentType: VSIX_TYPE,
    format: 'zip',
    // The marketplace often gzips the VSIX (with or without Content-Encoding); a VSIX is never gzip itself.
    source: async () => ({ url: url(rc, id, version), decode: 'gzip' }),
  });
}

/** The version `latest` stands for now, from the upstream's metadata (with unlisted versions skipped). */
export type LatestVersion = (rc: RequestContext, id: ExtensionId) => Promise<string>;

/**
 * GET `<publisher>.<extension>/<version>/vsix` (packages/kind-vsix/README.md), the same for both kinds. `latest` is resolved to a
 * concrete version first, so blocks and flags on that version apply and the cache holds it under its own
 * name (never an immutable copy of "latest"); a kind that cannot resolve it refuses it.
 */
export function vsixRoute(url: VsixUrl, latest?: LatestVersion): KindRoute {
  return {
    id: 'vsix',
    match(s) {
      if (s.length !== 3 || s[2] !== 'vsix') return null;
      const id = checkedId(s[0]!);
      if (s[1] === 'latest') return { coordinate: { name: id.name }, params: { latest: '1' } };
      return { coordinate: { name: id.name, version: checkedVersion(s[1]!) } };
    },
    async handle(rc, m) {
      const id = checkedId(m.coordinate!.name);
      if (!m.params?.latest) return vsix(rc, id, m.coordinate!.version!, url);
      if (!latest)
        throw errors.badRequest(`name a version: this registry cannot tell which version of ${id.name} "latest" is`);
      return vsix(rc, id, checkedVersion(await latest(rc, id)), url);
    },
  };
}
