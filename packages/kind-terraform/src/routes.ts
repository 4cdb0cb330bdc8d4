import { errors, reply, type KindRoute, type Reply, type RouteMatch } from '@hub/contract';
import type { TerraformConfig } from './config.js';
import { serveFile, type ProviderFile } from './files.js';
import { mirrorsHost, mirrorIndex, mirrorVersion } from './mirror.js';
import {
  coordinateName,
  isHostname,
  isVersion,
  platform,
  provider,
  splitName,
  version,
  type Platform,
  type Provider,
} from './names.js';
import { tooNew } from './cooldown.js';
import {
  downloadDoc,
  notHeld,
  parsedVersions,
  rewriteDownload,
  rewriteVersions,
  versionsDoc,
  type Rc,
} from './registry-docs.js';

type Route = KindRoute<TerraformConfig>;

const FILES: Record<string, ProviderFile> = {
  'archive.zip': 'archive',
  SHA256SUMS: 'shasums',
  'SHA256SUMS.sig': 'signature',
};

const isApi = (s: readonly string[]) => s[0] === 'v1' && s[1] === 'providers';

/** Recovers what `match` validated (route params are strings). */
function fromMatch(m: RouteMatch): { p: Provider; v: string; pl: Platform } {
  const p = splitName(m.coordinate!.name)!;
  return { p, v: m.coordinate!.version ?? '', pl: { os: m.params?.os ?? '', arch: m.params?.arch ?? '' } };
}

function versioned(p: Provider, v: string, pl: Platform, extra: Record<string, string> = {}): RouteMatch {
  return { coordinate: { name: coordinateName(p), version: v }, params: { os: pl.os, arch: pl.arch, ...extra } };
}

const noCache = (stale: boolean): Record<string, string> => ({
  'cache-control': 'no-cache',
  ...(stale ? { 'x-hub-stale': '1' } : {}),
});

/** GET /v1/providers/<ns>/<type>/versions (packages/kind-terraform/README.md): the upstream listing minus unlisted versions and (cool-down) too-new ones. */
const versionsRoute: Route = {
  id: 'versions',
  match: (s) =>
    isApi(s) && s.length === 5 && s[4] === 'versions'
      ? { coordinate: { name: coordinateName(provider(s[2]!, s[3]!)) } }
      : null,
  async handle(rc, m) {
    const p = splitName(m.coordinate!.name)!;
    const doc = await versionsDoc(rc, p);
    const unlisted = await rc.hiddenVersions(m.coordinate!.name);
    const hidden = new Set([...unlisted, ...(await tooNew(rc, p, parsedVersions(doc), unlisted)), ...notHeld(doc)]);
    const body = hidden.size ? Buffer.from(JSON.stringify(rewriteVersions(parsedVersions(doc), hidden))) : doc.body;
    return reply.bytes(body, 'application/json', noCache(doc.stale));
  },
};

/**
 * GET /v1/providers/<ns>/<type>/<version>/download/<os>/<arch> (packages/kind-terraform/README.md): the upstream document with
 * its three URLs pointing at hub (signed, per request); 404 when the upstream no longer has it.
 */
const downloadRoute: Route = {
  id: 'download',
  match: (s) =>
    isApi(s) && s.length === 8 && s[5] === 'download'
      ? versioned(provider(s[2]!, s[3]!), version(s[4]!), platform(s[6]!, s[7]!))
      : null,
  async handle(rc: Rc, m) {
    const { p, v, pl } = fromMatch(m);
    const d = await downloadDoc(rc, p, v, pl);
    return reply.json(rewriteDownload(rc, d.parsed, p, v, pl), 200, noCache(d.doc.stale));
  },
};

/**
 * GET .../download/<os>/<arch>/{archive.zip,SHA256SUMS,SHA256SUMS.sig}: the files the rewritten
 * documents point at. Terraform sends no token there, so a signed URL grants them (packages/kind-terraform/README.md).
 */
const fileRoute: Route = {
  id: 'file',
  signedAccess: true,
  match(s) {
    if (!isApi(s) || s.length !== 9 || s[5] !== 'download') return null;
    const file = FILES[s[8]!];
    return file ? versioned(provider(s[2]!, s[3]!), version(s[4]!), platform(s[6]!, s[7]!), { file }) : null;
  },
  handle(rc, m): Promise<Reply> {
    const { p, v, pl } = fromMatch(m);
    return serveFile(rc, m.params!.file as ProviderFile, p, v, pl);
  },
};

/** GET /mirror/<hostname>/<ns>/<type>/index.json and /<version>.json: the network mirror protocol. */
const mirrorRoute: Route = {
  id: 'mirror',
  match(s) {
    if (s[0] !== 'mirror' || s.length !== 5) return null;
    const host = s[1]!.toLowerCase();
    if (!isHostname(host))
      throw errors.badRequest(`${JSON.stringify(s[1]!.slice(0, 100))} is not a valid provider hostname`);
    const p = provider(s[2]!, s[3]!);
    const file = s[4]!;
    if (file === 'index.json') return { coordinate: { name: coordinateName(p) }, params: { host } };
    const v = file.endsWith('.json') ? file.slice(0, -5) : '';
    return isVersion(v) ? { coordinate: { name: coordinateName(p), version: v }, params: { host } } : null;
  },
  async handle(rc, m) {
    if (!mirrorsHost(rc, m.params!.host!))
      throw errors.notFound(`registry ${rc.registry.name} does not mirror providers of ${m.params!.host!}`);
    const p = splitName(m.coordinate!.name)!;
    return m.coordinate!.version ? mirrorVersion(rc, p, m.coordinate!.version) : mirrorIndex(rc, p);
  },
};

export const routes: readonly Route[] = [versionsRoute, downloadRoute, fileRoute, mirrorRoute];
