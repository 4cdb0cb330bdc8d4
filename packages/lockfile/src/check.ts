/**
 * The readiness of each lockfile entry on its registry: blocks, unlisting, flags and other refusal rules first
 * (they refuse held versions too), then what hub holds (with the lockfile's digest against the held bytes),
 * then the upstream (cool-down, then the kind's probe ladder).
 */
import type { Coordinate, HeldArtifact, PluginContext, ServedRegistry } from '@hub/runtime';
import { probeFetch } from '@hub/runtime';
import type { EntryAnswer } from './answer.js';
import { artifactPaths, isLockedFile } from './artifact-paths.js';
import type { LockDigest, LockEntry } from './entry.js';
import { heldDigest } from './held-digest.js';
import { inPool } from './pool.js';

/** Strongest first: the digest compared when the lockfile records several. */
const STRENGTH: Array<LockDigest['algorithm']> = ['sha512', 'sha256', 'h1', 'sha1'];
/** Flag effects that refuse an install (on a registry with a security profile, `gate` does: the refusal rule decides). */
const EFFECT_ORDER = ['info', 'warn', 'gate', 'hard_block'];

export type CheckDeps = Pick<
  PluginContext,
  'services' | 'served' | 'refusals' | 'packageFacts' | 'blobs' | 'log' | 'config'
>;

interface PackageView {
  canonical: string;
  /** Held files per version, by the kind's canonical spelling. */
  held: Map<string, HeldArtifact[]>;
  probe: Map<string, { answer: string; detail?: string }>;
  publishedAt: Map<string, Date>;
  facts: Awaited<ReturnType<PluginContext['packageFacts']['detail']>>;
  hidden: ReadonlySet<string>;
}

const digestTexts = (e: LockEntry): string[] => e.digests.map((x) => `${x.algorithm}:${x.hex}`);

const strongest = (ds: readonly LockDigest[]): LockDigest['algorithm'] | undefined =>
  STRENGTH.find((a) => ds.some((d) => d.algorithm === a));

/** Checks entries of one registry (null: no registry serves their ecosystem). */
export async function checkEntries(
  d: CheckDeps,
  registry: string | null,
  entries: readonly LockEntry[],
  concurrency: number,
): Promise<EntryAnswer[]> {
  if (registry === null)
    return entries.map((e) => ({
      ecosystem: e.ecosystem,
      name: e.name,
      version: e.version,
      registry,
      status: 'no_registry',
      installable: false,
      reason: `no registry of this hub serves ${e.ecosystem}`,
      digests: digestTexts(e),
      paths: [],
    }));
  const reg = d.served.get(registry)!;
  const byName = new Map<string, LockEntry[]>();
  for (const e of entries) byName.set(e.name, [...(byName.get(e.name) ?? []), e]);
  const views = new Map<string, PackageView>();
  await inPool([...byName], concurrency, async ([name, es]) => views.set(name, await packageView(d, reg, name, es)));
  return inPool(entries, concurrency, (e) => checkOne(d, reg, e, views.get(e.name)!));
}

/** What is asked once per package: the upstream's probe and publish times (only for versions not held), flags, unlisting. */
async function packageView(
  d: CheckDeps,
  reg: ServedRegistry,
  name: string,
  es: readonly LockEntry[],
): Promise<PackageView> {
  const registry = reg.info.name;
  const canonical = reg.kind.coordinate.normalizeName?.(name) ?? name;
  const key = (v: string) => reg.kind.coordinate.canonicalVersion?.(v) ?? v;
  const held = new Map<string, HeldArtifact[]>();
  for (const a of await d.services.held.list(registry, { packageName: canonical }))
    if (a.version !== null) held.set(key(String(a.version)), [...(held.get(key(String(a.version))) ?? []), a]);
  const missing = es.map((e) => e.version).filter((v) => !held.has(key(v)));
  const probe = new Map<string, { answer: string; detail?: string }>();
  if (missing.length && reg.kind.probe && reg.info.mode !== 'local' && reg.info.upstream) {
    try {
      for (const r of await reg.kind.probe(
        { registry: reg.info, upstream: reg.upstream, log: d.log },
        canonical,
        missing,
      ))
        probe.set(r.version, r);
    } catch (e) {
      for (const v of missing) probe.set(v, { answer: 'inconclusive', detail: (e as Error).message.slice(0, 200) });
    }
  }
  const publishedAt =
    missing.length && (reg.info.minReleaseAgeSecs ?? 0) > 0
      ? await publishTimes(d, reg, canonical)
      : new Map<string, Date>();
  return {
    canonical,
    held,
    probe,
    publishedAt,
    facts: await d.packageFacts.detail(registry, canonical),
    hidden: await d.services.unlisting.hiddenVersions(registry, canonical),
  };
}

/**
 * Publish times the check can read before any fetch: npm's packument `time`. Other kinds apply their cool-down
 * when the file is fetched (warming reports it then); decision 0059.
 */
async function publishTimes(d: CheckDeps, reg: ServedRegistry, name: string): Promise<Map<string, Date>> {
  const out = new Map<string, Date>();
  if (reg.info.type !== 'npm' || !reg.info.upstream) return out;
  const res = await probeFetch(reg.upstream, `${reg.info.upstream.replace(/\/+$/, '')}/${name.replace('/', '%2f')}`, {
    maxBytes: d.config.limits.max_metadata_bytes,
  });
  if (res.status !== 200) return out;
  try {
    const time = (JSON.parse(res.body.toString('utf8')) as { time?: Record<string, unknown> }).time ?? {};
    for (const [v, t] of Object.entries(time))
      if (typeof t === 'string' && !Number.isNaN(Date.parse(t))) out.set(v, new Date(t));
  } catch {
    // An unreadable packument tells no publish time: the fetch applies the cool-down.
  }
  return out;
}

async function checkOne(d: CheckDeps, reg: ServedRegistry, e: LockEntry, v: PackageView): Promise<EntryAnswer> {
  const registry = reg.info.name;
  const version = reg.kind.coordinate.canonicalVersion?.(e.version) ?? e.version;
  const base = {
    ecosystem: e.ecosystem,
    name: e.name,
    version: e.version,
    registry,
    digests: digestTexts(e),
    paths: artifactPaths(e, v.canonical),
  };
  const c: Coordinate = { name: v.canonical, version: e.version };
  const block = await d.services.blocks.find(registry, c);
  if (block)
    return {
      ...base,
      status: 'blocked',
      installable: false,
      reason: `blocked by ${block.blocked_by}${block.reason ? `: ${block.reason}` : ''}`,
    };
  if (v.hidden.has(version))
    return {
      ...base,
      status: 'unlisted',
      installable: false,
      reason: `${e.name} ${e.version} is unlisted on ${registry}`,
    };
  let refusal: string | null = null;
  for (const rule of d.refusals) {
    const r = await rule(registry, c);
    // A waiver lifts a refusal for one request's subject only: the check reports the refusal itself.
    if (r) {
      refusal = typeof r === 'string' ? r : r.message;
      break;
    }
  }
  const flags = [
    ...(v.facts.everyVersion?.flags ?? []),
    ...(v.facts.versions.get(version)?.flags ?? v.facts.versions.get(e.version)?.flags ?? []),
  ];
  if (flags.length) {
    const effect = flags.map((f) => f.effect).sort((a, b) => EFFECT_ORDER.indexOf(b) - EFFECT_ORDER.indexOf(a))[0]!;
    const why = flags.map((f) => `${f.source} ${f.id}${f.summary ? `: ${f.summary}` : ''}`).join('; ');
    return { ...base, status: 'flagged', installable: refusal === null, effect, reason: refusal ?? why };
  }
  if (refusal) return { ...base, status: 'blocked', installable: false, reason: refusal };
  const files = (v.held.get(version) ?? []).filter((f) => isLockedFile(e, f.cache_key));
  if (files.length) return { ...base, ...(await compareHeld(d, e, files)) };
  const published = v.publishedAt.get(e.version);
  const coolDown = (reg.info.minReleaseAgeSecs ?? 0) * 1000;
  if (published && Date.now() - published.getTime() < coolDown) {
    const until = new Date(published.getTime() + coolDown).toISOString();
    return {
      ...base,
      status: 'cooldown',
      installable: false,
      until,
      reason: `published ${published.toISOString()}, within ${registry}'s min_release_age_secs`,
    };
  }
  const p = v.probe.get(e.version);
  if (p?.answer === 'present') return { ...base, status: 'fetchable', installable: true };
  const reason =
    p?.answer === 'absent'
      ? `the upstream of ${registry} does not have ${e.name} ${e.version}`
      : p
        ? `the upstream of ${registry} did not answer clearly${p.detail ? ` (${p.detail})` : ''}`
        : `${registry} holds no ${e.name} ${e.version} and cannot ask an upstream for it`;
  return { ...base, status: 'unknown_upstream', installable: false, reason };
}

/** held, or integrity_mismatch when a held file's digest is none of those the lockfile records in the strongest algorithm both know. */
async function compareHeld(
  d: CheckDeps,
  e: LockEntry,
  files: ReadonlyArray<{ blob_sha256: string; cache_key: string }>,
): Promise<Pick<EntryAnswer, 'status' | 'installable' | 'integrity' | 'reason'>> {
  const algorithm = strongest(e.digests);
  if (!algorithm) return { status: 'held', installable: true };
  const want = e.digests.filter((x) => x.algorithm === algorithm).map((x) => x.hex);
  for (const f of files) {
    const have = await heldDigest(d.blobs, f, algorithm);
    if (have === null || want.includes(have)) continue;
    return {
      status: 'integrity_mismatch',
      installable: false,
      integrity: { algorithm, lockfile: want.join(' '), held: have },
      reason: `hub holds ${f.cache_key} with ${algorithm} ${have}, the lockfile records ${want.join(' or ')}`,
    };
  }
  return { status: 'held', installable: true };
}
