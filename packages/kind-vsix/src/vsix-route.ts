import type { KindRoute, RequestContext, Reply } from '@hub/runtime';
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

/** GET `<publisher>.<extension>/<version>/vsix` (SPEC 4.1), the same for both kinds. */
export function vsixRoute(url: VsixUrl): KindRoute {
  return {
    id: 'vsix',
    match(s) {
      if (s.length !== 3 || s[2] !== 'vsix') return null;
      const id = checkedId(s[0]!);
      return { coordinate: { name: id.name, version: checkedVersion(s[1]!) } };
    },
    handle: (rc, m) => vsix(rc, checkedId(m.coordinate!.name), m.coordinate!.version!, url),
  };
}
