import { errors, reply, type Reply } from '@hub/contract';
import { coordinateName, type Platform, type Provider } from './names.js';
import {
  downloadDoc,
  notHeld,
  filePaths,
  parsedVersions,
  upstreamBase,
  versionsDoc,
  type Rc,
} from './registry-docs.js';
import { shasums } from './files.js';
import { tooNew } from './cooldown.js';

/**
 * The provider network mirror protocol, built from the same upstream registry documents and the same
 * cached zips as the registry protocol: `index.json` lists versions, `<version>.json` lists one
 * archive per platform with its `zh:` hash (the sha256 from the version's SHA256SUMS).
 */

/** The provider source hostnames this registry mirrors: `mirror_hostnames`, else the upstream's host. */
export function mirrorsHost(rc: Rc, hostname: string): boolean {
  const configured = rc.registry.config.mirror_hostnames;
  const hosts = configured?.length
    ? configured.map((h) => h.toLowerCase())
    : [new URL(upstreamBase(rc)).host.toLowerCase()];
  return hosts.includes(hostname);
}

const json = (value: unknown, stale: boolean): Reply =>
  reply.json(value, 200, { 'cache-control': 'no-cache', ...(stale ? { 'x-hub-stale': '1' } : {}) });

export async function mirrorIndex(rc: Rc, p: Provider): Promise<Reply> {
  const doc = await versionsDoc(rc, p);
  const unlisted = await rc.hiddenVersions(coordinateName(p));
  const hidden = new Set([...unlisted, ...(await tooNew(rc, p, parsedVersions(doc), unlisted)), ...notHeld(doc)]);
  const versions: Record<string, object> = {};
  for (const e of parsedVersions(doc).versions) if (!hidden.has(e.version)) versions[e.version] = {};
  return json({ versions }, doc.stale);
}

/** `zh:` hashes by platform; a SHA256SUMS name that is not the usual one costs that platform's download document. */
async function hashes(rc: Rc, p: Provider, v: string, platforms: Platform[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!platforms.length) return out;
  const sums = await shasums(rc, p, v, platforms[0]!);
  for (const pl of platforms) {
    let hex = sums.get(`terraform-provider-${p.type}_${v}_${pl.os}_${pl.arch}.zip`);
    // Without a hash terraform trusts hub for that platform; hub still checks the zip against SHA256SUMS.
    if (!hex)
      hex = await downloadDoc(rc, p, v, pl).then(
        (d) => sums.get(d.parsed.filename),
        () => undefined,
      );
    if (hex) out.set(`${pl.os}_${pl.arch}`, hex);
  }
  return out;
}

/** `<version>.json`: every platform the listing names, its URL pointing at hub's signed zip route. */
export async function mirrorVersion(rc: Rc, p: Provider, v: string): Promise<Reply> {
  const doc = await versionsDoc(rc, p);
  // Unlisted versions stay installable by exact version (docs/errors.md), so no hidden check here.
  const entry = parsedVersions(doc).versions.find((e) => e.version === v);
  if (!entry) throw errors.notFound(`${coordinateName(p)} ${v} is not in the upstream`);
  const platforms = (entry.platforms ?? []).filter(
    (pl): pl is Platform =>
      typeof pl?.os === 'string' &&
      typeof pl.arch === 'string' &&
      /^[a-z0-9]{1,32}$/.test(pl.os) &&
      /^[a-z0-9]{1,32}$/.test(pl.arch),
  );
  const sums = await hashes(rc, p, v, platforms);
  const archives: Record<string, { url: string; hashes?: string[] }> = {};
  for (const pl of platforms) {
    const key = `${pl.os}_${pl.arch}`;
    const hex = sums.get(key);
    archives[key] = { url: rc.signedUrl(filePaths(p, v, pl).archive), ...(hex ? { hashes: [`zh:${hex}`] } : {}) };
  }
  return json({ archives }, doc.stale);
}
