import { errors, nameAtVersion } from '@hub/contract';

/**
 * Provider addresses, versions and platforms as terraform spells them. Everything that lands in an
 * upstream URL or a cache key passes one of these first, so a hostile segment never leaves hub.
 */
const PART = /^[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?$/;
const VERSION = /^\d{1,9}\.\d{1,9}\.\d{1,9}(?:-[0-9A-Za-z.-]{1,64})?(?:\+[0-9A-Za-z.-]{1,64})?$/;
const PLATFORM = /^[a-z0-9]{1,32}$/;
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOSTNAME = new RegExp(`^${LABEL}(?:\\.${LABEL})*(?::\\d{1,5})?$`);

/** One provider: `<namespace>/<type>`, lower-cased (terraform compares addresses case-insensitively). */
export interface Provider {
  ns: string;
  type: string;
}

export interface Platform {
  os: string;
  arch: string;
}

export const isVersion = (s: string): boolean => VERSION.test(s);
/** A provider source hostname as terraform normalises it: lower-case (punycode), optional port. */
export const isHostname = (s: string): boolean => s.length <= 260 && HOSTNAME.test(s);

const clip = (s: string) => JSON.stringify(s.slice(0, 100));

/** Validates and lower-cases a namespace and type from the path; 400 when either is malformed. */
export function provider(ns: string, type: string): Provider {
  const p = { ns: ns.toLowerCase(), type: type.toLowerCase() };
  if (!PART.test(p.ns)) throw errors.badRequest(`${clip(ns)} is not a valid provider namespace`);
  if (!PART.test(p.type)) throw errors.badRequest(`${clip(type)} is not a valid provider type`);
  return p;
}

export function version(v: string): string {
  if (!isVersion(v)) throw errors.badRequest(`${clip(v)} is not a valid provider version`);
  return v;
}

export function platform(os: string, arch: string): Platform {
  if (!PLATFORM.test(os)) throw errors.badRequest(`${clip(os)} is not a valid operating system name`);
  if (!PLATFORM.test(arch)) throw errors.badRequest(`${clip(arch)} is not a valid architecture name`);
  return { os, arch };
}

/** `linux_amd64` as the probe_platform key and the network mirror's `archives` keys spell it. */
export function parsePlatformKey(key: string): Platform | null {
  const m = /^([a-z0-9]{1,32})_([a-z0-9]{1,32})$/.exec(key);
  return m ? { os: m[1]!, arch: m[2]! } : null;
}

/** The canonical coordinate name (docs/coordinates.md): `<namespace>/<type>`. */
export const coordinateName = (p: Provider): string => `${p.ns}/${p.type}`;

export function splitName(name: string): Provider | null {
  const parts = name.toLowerCase().split('/');
  return parts.length === 2 && PART.test(parts[0]!) && PART.test(parts[1]!) ? { ns: parts[0]!, type: parts[1]! } : null;
}

/** The text form used by the admin API, CLI and flags: `<namespace>/<type>[@<version>]`. */
export const codec = nameAtVersion({
  split: 'last',
  isName: (name) => splitName(name) !== null,
  isVersion,
  normalizeName: (name) => name.toLowerCase(),
});

/** The provider API path below the registry base (and below hub's `/proxy/<name>/`). */
export const providerPath = (p: Provider): string => `v1/providers/${p.ns}/${p.type}`;
export const downloadPath = (p: Provider, v: string, pl: Platform): string =>
  `${providerPath(p)}/${v}/download/${pl.os}/${pl.arch}`;
