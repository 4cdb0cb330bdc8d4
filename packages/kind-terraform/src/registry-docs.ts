import { errors, type MetadataDoc, type MetadataSpec, type RequestContext } from '@hub/contract';
import { coordinateName, downloadPath, providerPath, type Platform, type Provider } from './names.js';
import type { TerraformConfig } from './config.js';

export type Rc = RequestContext<TerraformConfig>;

/** `/versions`: `{versions: [{version, protocols, platforms: [{os, arch}]}], ...}`. */
export interface VersionsDoc {
  versions: Array<{ version: string; protocols?: string[]; platforms?: Platform[]; [k: string]: unknown }>;
  [k: string]: unknown;
}

/** `/<version>/download/<os>/<arch>`; members beyond these are kept as they are. */
export interface DownloadDoc {
  filename: string;
  download_url: string;
  shasums_url: string;
  shasums_signature_url: string;
  shasum?: string;
  [k: string]: unknown;
}

/** The upstream registry base; a local-mode terraform registry has nothing to serve. */
export function upstreamBase(rc: Pick<Rc, 'registry'>): string {
  if (!rc.registry.upstream)
    throw errors.notFound(
      `registry ${rc.registry.name} has no upstream (local terraform registries cannot be published to)`,
    );
  return rc.registry.upstream;
}

const object = (body: Buffer): Record<string, unknown> | string => {
  if (/^\s*</.test(body.subarray(0, 64).toString('latin1'))) return 'looks like an HTML page';
  try {
    const v = JSON.parse(body.toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : 'not a JSON object';
  } catch {
    return 'not JSON';
  }
};

export function checkVersions(body: Buffer): string | null {
  const v = object(body);
  if (typeof v === 'string') return v;
  if (!Array.isArray(v.versions)) return 'no versions array';
  return v.versions.every((e) => e && typeof e === 'object' && typeof (e as { version?: unknown }).version === 'string')
    ? null
    : 'a versions entry has no version';
}

export function checkDownload(body: Buffer): string | null {
  const v = object(body);
  if (typeof v === 'string') return v;
  for (const k of ['filename', 'download_url', 'shasums_url', 'shasums_signature_url'])
    if (typeof v[k] !== 'string' || !v[k]) return `no ${k}`;
  return null;
}

/** Kept (the last good copy served) when the upstream removes the provider. */
export const versionsSpec = (rc: Pick<Rc, 'registry'>, p: Provider): MetadataSpec => ({
  key: `versions:${p.ns}/${p.type}`,
  url: `${upstreamBase(rc)}/${providerPath(p)}/versions`,
  headers: { accept: 'application/json' },
  check: checkVersions,
  packageName: coordinateName(p),
});

/** From a kept versions document (the upstream removed the provider), the versions hub does not hold: left out. */
export const notHeld = (doc: MetadataDoc): string[] =>
  doc.kept
    ? parsedVersions(doc)
        .versions.map((e) => e.version)
        .filter((v) => !doc.kept!.heldVersions.has(v))
    : [];

/** Kept too: a held version's download document is what terraform reads before the files hub holds. */
export const downloadSpec = (rc: Rc, p: Provider, v: string, pl: Platform): MetadataSpec => ({
  key: `download:${p.ns}/${p.type}/${v}/${pl.os}/${pl.arch}`,
  url: `${upstreamBase(rc)}/${downloadPath(p, v, pl)}`,
  headers: { accept: 'application/json' },
  check: checkDownload,
  packageName: coordinateName(p),
});

export const parsedVersions = (doc: MetadataDoc): VersionsDoc =>
  doc.derive('parsed', (b) => JSON.parse(b.toString('utf8')) as VersionsDoc);
export const parsedDownload = (doc: MetadataDoc): DownloadDoc =>
  doc.derive('parsed', (b) => JSON.parse(b.toString('utf8')) as DownloadDoc);

export async function versionsDoc(rc: Rc, p: Provider): Promise<MetadataDoc> {
  return rc.metadata(versionsSpec(rc, p));
}

/** The download document and the URL it came from (its URLs may be relative to that). */
export async function downloadDoc(
  rc: Rc,
  p: Provider,
  v: string,
  pl: Platform,
): Promise<{ doc: MetadataDoc; parsed: DownloadDoc; url: string }> {
  const spec = downloadSpec(rc, p, v, pl);
  const doc = await rc.metadata(spec);
  return { doc, parsed: parsedDownload(doc), url: spec.url };
}

/** An upstream URL from a download document, resolved the way terraform resolves it; http(s) only. */
export function resolveUpstreamUrl(value: string, docUrl: string, what: string): string {
  let u: URL;
  try {
    u = new URL(value, docUrl);
  } catch {
    throw errors.upstream(`the upstream download document has an invalid ${what}`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    throw errors.upstream(`the upstream ${what} is not an http(s) URL`);
  return u.href;
}

/** The listing as hub serves it: unlisted versions dropped, every other member as the upstream sent it. */
export function rewriteVersions(doc: VersionsDoc, hidden: ReadonlySet<string>): VersionsDoc {
  return hidden.size ? { ...doc, versions: doc.versions.filter((e) => !hidden.has(e.version)) } : doc;
}

/** Hub's own paths for the three files a download document names (signed: terraform sends no token there). */
export const filePaths = (p: Provider, v: string, pl: Platform) => {
  const base = downloadPath(p, v, pl);
  return { archive: `${base}/archive.zip`, shasums: `${base}/SHA256SUMS`, signature: `${base}/SHA256SUMS.sig` };
};

/**
 * The download document as hub serves it: the three URLs point at hub with a short-lived signature;
 * (valid for the runtime's default of 10 minutes); every other member (filename, shasum, signing_keys, ...) keeps its value and position, because
 * terraform checks the zip and SHA256SUMS against the upstream's own key.
 */
export function rewriteDownload(rc: Rc, doc: DownloadDoc, p: Provider, v: string, pl: Platform): DownloadDoc {
  const f = filePaths(p, v, pl);
  return {
    ...doc,
    download_url: rc.signedUrl(f.archive),
    shasums_url: rc.signedUrl(f.shasums),
    shasums_signature_url: rc.signedUrl(f.signature),
  };
}
