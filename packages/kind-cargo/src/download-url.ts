import { errors, type MetadataSpec } from '@hub/contract';
import { indexPrefix } from './names.js';

/** The upstream's own sparse index config: `dl` says where its .crate files are. */
export const upstreamConfigSpec = (upstream: string): MetadataSpec => ({
  key: 'upstream-config.json',
  url: `${upstream}/config.json`,
  check: (body) => {
    const dl = parseDl(body);
    return typeof dl === 'string' && /^https?:\/\//.test(dl) ? null : 'no http(s) dl member';
  },
});

export function parseDl(body: Buffer): string | null {
  try {
    const v = JSON.parse(body.toString('utf8')) as { dl?: unknown };
    return v && typeof v.dl === 'string' ? v.dl : null;
  } catch {
    return null;
  }
}

const MARKERS = /\{(?:crate|version|prefix|lowerprefix|sha256-checksum)\}/;

/**
 * A crate's download URL from a `dl` template, as cargo builds it: the markers `{crate}`,
 * `{version}`, `{prefix}`, `{lowerprefix}` and `{sha256-checksum}` are replaced; a `dl` with none
 * of them gets `/{crate}/{version}/download` appended. `name` is the crate's name as its index
 * line spells it; it and `version` were validated, so they need no escaping.
 */
export function downloadUrl(dl: string, name: string, version: string, cksum: string): string {
  const url = MARKERS.test(dl)
    ? dl
        .replaceAll('{crate}', name)
        .replaceAll('{version}', version)
        .replaceAll('{prefix}', indexPrefix(name))
        .replaceAll('{lowerprefix}', indexPrefix(name).toLowerCase())
        .replaceAll('{sha256-checksum}', cksum)
    : `${dl.replace(/\/+$/, '')}/${name}/${version}/download`;
  if (!/^https?:\/\/[^/?#\s]+/.test(url)) throw errors.upstream('the upstream index config names no usable dl URL');
  return url;
}
