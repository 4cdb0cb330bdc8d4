/**
 * The full-index documents `specs.4.8.gz`, `latest_specs.4.8.gz` and `prerelease_specs.4.8.gz`: a
 * gzipped Marshal array of `[name, Gem::Version, platform]`. Served as the upstream sent them unless
 * a listed gem has unlisted versions; then they are decoded, those entries dropped, and re-encoded.
 * In `latest_specs` an unlisted latest version is dropped, not replaced by the one before it.
 * Documents over MAX_SPECS_ENTRIES entries are served unchanged (decoding them per refresh costs too
 * much); bundler and gem's compact-index mode never read them.
 */
import zlib from 'node:zlib';
import { gunzipCapped } from '@hub/contract';
import { decode, encode, MSym, type MValue } from './marshal.js';
import type { GemMeta } from './gem-package.js';
import { isHidden } from './names.js';
import { compareGemVersions, isPrerelease } from './version.js';

/** The largest inflated specs document, and the most entries, hub decodes to apply unlisting. */
export const MAX_SPECS_BYTES = 64 * 1024 * 1024;
export const MAX_SPECS_ENTRIES = 100_000;

export interface Entry {
  name: string;
  token: string;
}

const text = (v: MValue): string | null =>
  v && typeof v === 'object' && !(v instanceof MSym) && v.t === 'string' ? v.bytes.toString('utf8') : null;

/** `[name, version, platform]` as a gem name and version token; null for any other shape. */
export function entryOfItem(v: MValue): Entry | null {
  if (!v || typeof v !== 'object' || v instanceof MSym || v.t !== 'array' || v.items.length !== 3) return null;
  const [n, ver, plat] = v.items;
  const name = text(n!);
  const version =
    ver &&
    typeof ver === 'object' &&
    !(ver instanceof MSym) &&
    ver.t === 'userMarshal' &&
    ver.cls.name === 'Gem::Version' &&
    ver.data &&
    typeof ver.data === 'object' &&
    !(ver.data instanceof MSym) &&
    ver.data.t === 'array'
      ? text(ver.data.items[0] ?? null)
      : null;
  const platform = text(plat!) ?? 'ruby';
  return name && version ? { name, token: platform === 'ruby' ? version : `${version}-${platform}` } : null;
}

/** The entries of a specs document; null when it is too large to decode here. */
export function decodeSpecs(gz: Buffer): MValue[] | null {
  const raw = gunzipCapped(gz, MAX_SPECS_BYTES);
  // The top array's length is its third byte on: `04 08 [ <count>`.
  if (raw[2] === 0x5b && raw[3] !== undefined && raw[3] >= 0x01 && raw[3] <= 0x04) {
    let n = 0;
    for (let i = 0; i < raw[3]; i++) n += (raw[4 + i] ?? 0) * 256 ** i;
    if (n > MAX_SPECS_ENTRIES) return null;
  }
  const root = decode(raw);
  if (!root || typeof root !== 'object' || root instanceof MSym || root.t !== 'array')
    throw new Error('the specs index is not a Marshal array');
  return root.items;
}

/** The entries as `<name> <token>`, the ones of another shape left out. */
export const specsEntries = (items: MValue[]): Entry[] => items.map(entryOfItem).filter((e): e is Entry => e !== null);
export const specsNames = (items: MValue[]): string[] => [...new Set(specsEntries(items).map((e) => e.name))];

/** The specs document without the entries of unlisted versions; the same bytes when none are listed. */
export function filterSpecs(gz: Buffer, items: MValue[], hidden: ReadonlyMap<string, ReadonlySet<string>>): Buffer {
  const kept = items.filter((i) => {
    const e = entryOfItem(i);
    return !e || !isHidden(hidden.get(e.name) ?? new Set(), e.token);
  });
  if (kept.length === items.length) return gz;
  return zlib.gzipSync(encode({ t: 'array', items: kept }));
}

export type SpecsFile = 'specs.4.8.gz' | 'latest_specs.4.8.gz' | 'prerelease_specs.4.8.gz';

const rstr = (s: string): MValue => ({ t: 'string', bytes: Buffer.from(s, 'utf8') });
const specsItem = (m: Pick<GemMeta, 'name' | 'version' | 'platform'>): MValue => ({
  t: 'array',
  items: [
    rstr(m.name),
    { t: 'userMarshal', cls: new MSym(Buffer.from('Gem::Version')), data: { t: 'array', items: [rstr(m.version)] } },
    rstr(m.platform),
  ],
});

/** The entries of `file` for gems published here: releases, the latest release per name and platform, or prereleases. */
export function localSpecsItems(gems: readonly GemMeta[], file: SpecsFile): MValue[] {
  if (file === 'prerelease_specs.4.8.gz') return gems.filter((g) => isPrerelease(g.version)).map(specsItem);
  const releases = gems.filter((g) => !isPrerelease(g.version));
  if (file === 'specs.4.8.gz') return releases.map(specsItem);
  const latest = new Map<string, GemMeta>();
  for (const g of releases) {
    const key = `${g.name} ${g.platform}`;
    const seen = latest.get(key);
    if (!seen || compareGemVersions(g.version, seen.version) > 0) latest.set(key, g);
  }
  return [...latest.values()].map(specsItem);
}

/** A specs document: the upstream's entries (null: none) less those of the `drop` gems, then the local ones. */
export function mergeSpecs(upstream: MValue[] | null, drop: ReadonlySet<string>, local: MValue[]): Buffer {
  const kept = (upstream ?? []).filter((i) => {
    const e = entryOfItem(i);
    return !e || !drop.has(e.name);
  });
  return zlib.gzipSync(encode({ t: 'array', items: [...kept, ...local] }));
}
