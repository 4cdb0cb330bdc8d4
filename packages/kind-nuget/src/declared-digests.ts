import { probeFetch, type DeclaredDigest, type DeclaredDigests, type ProbeContext } from '@hub/contract';
import { isObject, MAX_JSON_BYTES, parseJson } from './json.js';
import { isPackageId } from './names.js';
import { MAX_VERSION_PROBES, serviceIndex } from './probe.js';
import { catalogEntry, catalogLeafUrl, hashOf } from './registration.js';
import type { UpstreamIndex } from './service-index.js';

/** Registration pages and catalog leaves as sent (a gz hive's body is gzip; parseJson caps what it inflates to). */
const MAX_DOC_BYTES = 16 * 1024 * 1024;

async function json(pc: ProbeContext, url: string): Promise<unknown> {
  const res = await probeFetch(pc.upstream, url, { maxBytes: Math.min(MAX_DOC_BYTES, MAX_JSON_BYTES) });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status || res.error}`);
  return parseJson(res.body);
}

/** `packageHash` of the version's registration catalog entry, else of the catalog leaf it names (as the gallery serves it). */
async function declared(
  pc: ProbeContext,
  up: UpstreamIndex,
  id: string,
  version: string,
  docs: Map<string, Promise<unknown>>,
): Promise<DeclaredDigest | null> {
  const load = (rest: string) => {
    let doc = docs.get(rest);
    if (!doc) docs.set(rest, (doc = json(pc, `${up.registration}${id}/${rest}`)));
    return doc;
  };
  const entry = await catalogEntry(load, up, id, version);
  if (!entry) return null;
  let digest = hashOf(entry);
  if (!digest) {
    const leaf = catalogLeafUrl(up, entry['@id']);
    const doc = leaf ? await json(pc, leaf) : null;
    digest = isObject(doc) ? hashOf(doc) : undefined;
  }
  if (!digest) return null;
  return { version, algorithm: digest.algorithm, hex: digest.hex, key: `${id}/${version}/${id}.${version}.nupkg` };
}

/**
 * Content drift: the `packageHash` (SHA512, base64) the upstream declares for each held .nupkg. A
 * registration or catalog leaf that cannot be read declares nothing for that version. At most 25
 * versions per package per sweep (packages/audit/README.md).
 */
export const declaredDigests: DeclaredDigests = async (pc, name, versions) => {
  const id = name.toLowerCase();
  if (!isPackageId(id)) return [];
  let up: UpstreamIndex;
  try {
    up = await serviceIndex(pc);
  } catch {
    return [];
  }
  if (!up.registration) return [];
  const docs = new Map<string, Promise<unknown>>();
  const out: DeclaredDigest[] = [];
  for (const version of versions.slice(0, MAX_VERSION_PROBES)) {
    const d = await declared(pc, up, id, version, docs).catch(() => null);
    if (d) out.push(d);
  }
  return out;
};
