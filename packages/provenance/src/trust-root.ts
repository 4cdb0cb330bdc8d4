import { readFileSync } from 'node:fs';
import { TrustedRoot } from '@sigstore/protobuf-specs';
import { toTrustMaterial, type TrustMaterial } from '@sigstore/verify';

/** The trust root shipped with the plugin: Sigstore's public-good instance, as its TUF repository published it. */
export const DEFAULT_TRUST_ROOT = new URL('../../trust/trusted_root.json', import.meta.url);

/** The most a trust root file may hold: a real one is a few KiB. */
const MAX_TRUST_ROOT_BYTES = 1024 * 1024;

export interface PinnedTrust {
  material: TrustMaterial;
  /** SCTs are required when the trust root names CT logs (decision 0062). */
  ctlogs: number;
  /** Where it was read from, for logs and errors. */
  origin: string;
}

/**
 * Reads a Sigstore `trusted_root.json` once, at start: a file that is missing, too large or not a trust root
 * stops hub with the path named. Nothing is fetched: the trust root is pinned by whoever deploys hub.
 */
export function loadTrustRoot(file: string | URL = DEFAULT_TRUST_ROOT): PinnedTrust {
  const origin = file instanceof URL ? file.pathname : file;
  let json: unknown;
  try {
    const bytes = readFileSync(file);
    if (bytes.length > MAX_TRUST_ROOT_BYTES) throw new Error(`larger than ${MAX_TRUST_ROOT_BYTES} bytes`);
    json = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    throw new Error(`[provenance] trust_root ${origin}: ${(e as Error).message}`);
  }
  const root = TrustedRoot.fromJSON(json);
  if (root.certificateAuthorities.length === 0 || root.tlogs.length === 0)
    throw new Error(
      `[provenance] trust_root ${origin}: a trust root needs at least one certificate authority and one transparency log`,
    );
  return { material: toTrustMaterial(root), ctlogs: root.ctlogs.length, origin };
}
