import {
  errors,
  isHubError,
  reply,
  type KindRoute,
  type MetadataDoc,
  type MetadataSpec,
  type Reply,
  type RequestContext,
  type RouteMatch,
} from '@hub/contract';
import {
  appendVersions,
  checkCompactIndex,
  filterInfo,
  filterVersions,
  md5hex,
  mergeInfo,
  parseInfo,
  versionsNames,
} from './compact-index.js';
import { coolDown, coolDownTime, coolingDown, readPublishTimes, type PublishTimes } from './cool-down.js';
import { checkGemDoc, latestListed, serveGemDoc, tokenOf as docToken, type GemDoc } from './gem-api.js';
import { requirementText, tokenOf, type GemMeta } from './gem-package.js';
import { indexReply, TEXT } from './index-reply.js';
import { infoSpec, listing } from './listing.js';
import { entryOf, infoLine, localGems, localNames, upstreamMayList } from './local.js';
import { fileName, isGemName, isHidden, splits } from './names.js';
import { push, yank } from './publish.js';
import { quickSpec } from './quick-spec.js';
import { resolveFile } from './resolve.js';
import {
  decodeSpecs,
  entryOfItem,
  filterSpecs,
  localSpecsItems,
  mergeSpecs,
  specsNames,
  type SpecsFile,
} from './specs.js';
import { hiddenAmong, signature } from './unlisted.js';

const isNotFound = (e: unknown) => isHubError(e) && e.code === 'not_found';

const SPECS_FILES = new Set(['specs.4.8.gz', 'latest_specs.4.8.gz', 'prerelease_specs.4.8.gz']);

/** A gzip head; or a zlib head (`78 xx`, header checksum), which is what a `.rz` file is. */
const checkGzip = (b: Buffer) => (b[0] === 0x1f && b[1] === 0x8b ? null : 'not gzip data');
const checkZlib = (b: Buffer) =>
  b.length >= 2 && (b[0]! & 0x0f) === 8 && (b[0]! * 256 + b[1]!) % 31 === 0 ? null : 'not zlib (.rz) data';

function checkedName(name: string): string {
  if (!isGemName(name)) throw errors.badRequest(`"${name.slice(0, 100)}" is not a valid gem name`);
  return name;
}

/** A file below `gems/` or `quick/Marshal.4.8/`: its base name; the coordinate only when the name has one reading. */
function fileMatch(file: string, ext: string): RouteMatch {
  const base = file.slice(0, -ext.length);
  const readings = splits(base);
  if (readings.length === 0) throw errors.badRequest(`"${file.slice(0, 100)}" is not <gem>-<version>${ext}`);
  const only = readings.length === 1 ? readings[0]! : undefined;
  return { params: { base }, ...(only ? { coordinate: { name: only.name, version: only.token } } : {}) };
}

/** A .gem or a .gemspec.rz, immutable once published: cached under the resolved (name, version). */
async function gemFile(rc: RequestContext, base: string, what: 'gem' | 'gemspec'): Promise<Reply> {
  const r = await resolveFile(rc, base);
  const file = fileName(r.name, r.token);
  const gem = what === 'gem';
  // Published here: the .gem is the stored file (served first); the gemspec is generated from the database.
  if (!gem && r.entry?.local)
    return reply.bytes(quickSpec(r.entry.local), 'application/octet-stream', { 'cache-control': 'no-cache' });
  const sha = gem ? r.entry?.sha256 : undefined;
  return rc.artifact({
    key: gem ? `gems/${r.name}/${file}.gem` : `quick/${r.name}/${file}.gemspec.rz`,
    coordinate: { name: r.name, version: r.token },
    contentType: 'application/octet-stream',
    ...(gem ? { format: 'tar' as const } : { checkHead: checkZlib }),
    async source() {
      // Not vouched for by the upstream's listing: only a copy hub already holds is served.
      if (r.unlisted) throw r.unlisted;
      const path = gem ? `gems/${file}.gem` : `quick/Marshal.4.8/${file}.gemspec.rz`;
      // A version published here is this registry's own: no cool-down.
      const publishedAt = r.entry?.local ? undefined : await coolDownTime(rc, r.name, r.token);
      return {
        url: `${rc.registry.upstream}/${path}`,
        ...(sha ? { digest: { algorithm: 'sha256' as const, hex: sha } } : {}),
        publishedAt,
      };
    },
  });
}

/**
 * `/info/<gem>` as hub serves it: unlisted versions dropped, and (cool-down) upstream versions too new or of
 * unknown age. Versions published here are generated from the database and appended to the upstream's
 * lines (hybrid), or alone (local, or a name owned here).
 */
async function servedInfo(rc: RequestContext, name: string): Promise<{ body: Buffer; stale: boolean }> {
  const local = await localGems(rc, name);
  let hidden = await rc.hiddenVersions(name);
  let doc: MetadataDoc | null = null;
  if (await upstreamMayList(rc, name)) {
    const times = readPublishTimes(rc, name);
    try {
      doc = await rc.metadata(infoSpec(rc, name));
    } catch (e) {
      if (local.length === 0 || !isNotFound(e)) throw e;
    }
    if (doc?.kept) {
      // A kept listing (the upstream removed the gem) offers only the versions hub holds, served from the
      // cache whatever their age: nothing for the cool-down to leave out.
      for (const e of doc.derive('info', parseInfo))
        if (!doc.kept.heldVersions.has(e.token)) hidden = new Set([...hidden, e.token]);
    } else if (doc)
      hidden = await withCoolingDown(
        rc,
        name,
        hidden,
        doc.derive('info', parseInfo).map((e) => e.token),
        local,
        times,
      );
    if (doc && local.length === 0)
      return {
        body: doc.derive(`served:${[...hidden].sort().join(',')}`, (b) => filterInfo(b, hidden)),
        stale: doc.stale,
      };
  }
  if (!doc && local.length === 0) throw errors.notFound(`no version of ${name} is published here`);
  return { body: filterInfo(mergeInfo(doc?.body ?? null, local.map(infoLine)), hidden), stale: doc?.stale ?? false };
}

/**
 * `hidden` plus the upstream `tokens` the cool-down leaves out (none without one). Those published here are
 * not the upstream's, nor are tokens already hidden asked about. A young ruby-platform version also hides its
 * platform builds, as a bare unlisted version does (names.ts `isHidden`). `times`: from `readPublishTimes`.
 */
async function withCoolingDown(
  rc: RequestContext,
  name: string,
  hidden: ReadonlySet<string>,
  tokens: readonly string[],
  local: readonly GemMeta[],
  times?: PublishTimes | null,
): Promise<ReadonlySet<string>> {
  const own = new Set(local.map(tokenOf));
  const young = await coolingDown(
    rc,
    name,
    tokens.filter((t) => !own.has(t) && !isHidden(hidden, t)),
    times,
  );
  return young.size ? new Set([...hidden, ...young]) : hidden;
}

/**
 * The gems published here as `/versions` lines (each with the md5 of the `/info/<gem>` hub serves), and the
 * names whose upstream lines must go (local registry, or owned here).
 */
async function localVersionsLines(rc: RequestContext): Promise<{ drop: Set<string>; lines: string[] }> {
  const drop = new Set<string>();
  const lines: string[] = [];
  for (const name of await localNames(rc)) {
    if (!(await upstreamMayList(rc, name))) drop.add(name);
    const hidden = await rc.hiddenVersions(name);
    const tokens = (await localGems(rc, name)).map(tokenOf).filter((t) => !isHidden(hidden, t));
    if (tokens.length === 0) continue;
    const info = await servedInfo(rc, name).catch(() => null);
    if (info) lines.push(`${name} ${tokens.join(',')} ${md5hex(info.body)}`);
  }
  return { drop, lines };
}

const indexSpec = (rc: RequestContext, path: string): MetadataSpec => ({
  key: path,
  url: `${rc.registry.upstream}/${path}`,
  check: checkCompactIndex,
});

/** `/versions` as hub serves it: the upstream's (none in a local registry), then the gems published here. */
async function servedVersions(rc: RequestContext): Promise<{ body: Buffer; stale: boolean }> {
  const up = rc.registry.mode === 'local' ? null : await keptAppended(rc, await upstreamVersions(rc));
  if (rc.registry.mode === 'proxy') return up!;
  const { drop, lines } = await localVersionsLines(rc);
  if (up && drop.size === 0 && lines.length === 0) return up;
  return { body: appendVersions(up?.body ?? null, drop, lines), stale: up?.stale ?? false };
}

/**
 * The upstream's `/versions` plus a line for each gem hub keeps after the upstream removed it: bundler asks
 * for `/info/<gem>` only of gems `/versions` lists, so without the line a locked gem hub holds is "not found".
 */
async function keptAppended(
  rc: RequestContext,
  up: { body: Buffer; stale: boolean },
): Promise<{ body: Buffer; stale: boolean }> {
  const kept = await rc.keptPackages();
  if (kept.length === 0) return up;
  const listed = new Set(versionsNames(up.body));
  const lines: string[] = [];
  for (const name of kept) {
    if (listed.has(name)) continue;
    const info = await servedInfo(rc, name).catch(() => null);
    const tokens = info ? parseInfo(info.body).map((e) => e.token) : [];
    if (info && tokens.length) lines.push(`${name} ${tokens.join(',')} ${md5hex(info.body)}`);
  }
  return lines.length ? { body: appendVersions(up.body, new Set(), lines), stale: up.stale } : up;
}

/** The upstream's `/versions`: unlisted versions dropped and the md5s of changed info files recomputed. */
async function upstreamVersions(rc: RequestContext): Promise<{ body: Buffer; stale: boolean }> {
  const doc = await rc.metadata(indexSpec(rc, 'versions'));
  const hidden = await hiddenAmong(rc, doc.derive('gem-names', versionsNames));
  // Said once per upstream document (derive memoises by its bytes), not on every request.
  if (!hidden)
    doc.derive('warned', () =>
      rc.log.warn({ registry: rc.registry.name }, 'too many gems to apply unlisting to /versions'),
    );
  if (!hidden?.size) return { body: doc.body, stale: doc.stale };
  const md5s = new Map<string, string>();
  for (const name of hidden.keys()) {
    const info = await servedInfo(rc, name).catch(() => null);
    if (info) md5s.set(name, md5hex(info.body));
  }
  const tag = `served:${signature(hidden)}:${[...md5s].join(',')}`;
  return { body: doc.derive(tag, (b) => filterVersions(b, hidden, md5s)), stale: doc.stale };
}

const root: KindRoute = {
  id: 'root',
  permission: null,
  match: (s) => (s.length === 0 || (s.length === 1 && s[0] === '') ? {} : null),
  // gem probes the source with HEAD and uses the compact index when it answers 200.
  handle: async () => reply.bytes('hub rubygems proxy: compact index at versions, info/<gem>, names\n', TEXT),
};

const versions: KindRoute = {
  id: 'versions',
  match: (s) => (s.length === 1 && s[0] === 'versions' ? {} : null),
  async handle(rc) {
    const { body, stale } = await servedVersions(rc);
    return indexReply(rc, body, { stale, ranges: true });
  },
};

const names: KindRoute = {
  id: 'names',
  match: (s) => (s.length === 1 && s[0] === 'names' ? {} : null),
  async handle(rc) {
    const doc = rc.registry.mode === 'local' ? null : await rc.metadata(indexSpec(rc, 'names'));
    const local = rc.registry.mode === 'proxy' ? [] : await localNames(rc);
    if (doc && local.length === 0) return indexReply(rc, doc.body, { stale: doc.stale, ranges: true });
    return indexReply(rc, appendVersions(doc?.body ?? null, new Set(local), local), {
      stale: doc?.stale ?? false,
      ranges: true,
    });
  },
};

const info: KindRoute = {
  id: 'info',
  match: (s) => (s.length === 2 && s[0] === 'info' ? { coordinate: { name: checkedName(s[1]!) } } : null),
  async handle(rc, m) {
    const { body, stale } = await servedInfo(rc, m.coordinate!.name);
    return indexReply(rc, body, { stale, ranges: true });
  },
};

const specs: KindRoute = {
  id: 'specs',
  match: (s) => (s.length === 1 && SPECS_FILES.has(s[0]!) ? { params: { file: s[0]! } } : null),
  async handle(rc, m) {
    const file = m.params!.file!;
    if (rc.registry.mode !== 'proxy') {
      const local = await localSpecs(rc, file as SpecsFile);
      if (rc.registry.mode === 'local' || local.names.length > 0)
        return indexReply(rc, await mergedSpecs(rc, file, local), {
          stale: false,
          contentType: 'application/octet-stream',
        });
    }
    const doc = await rc.metadata({ key: file, url: `${rc.registry.upstream}/${file}`, check: checkGzip });
    let items;
    try {
      items = doc.derive('items', decodeSpecs);
    } catch (e) {
      throw errors.upstream(`the upstream's ${file} cannot be read: ${(e as Error).message}`);
    }
    const hidden =
      items &&
      (await hiddenAmong(
        rc,
        doc.derive('gem-names', () => specsNames(items)),
      ));
    if (!hidden)
      doc.derive('warned', () =>
        rc.log.warn({ registry: rc.registry.name, file }, 'too many gems to apply unlisting to the specs index'),
      );
    const body =
      items && hidden?.size
        ? doc.derive(`served:${signature(hidden)}`, (b) => filterSpecs(b, items, hidden))
        : doc.body;
    return indexReply(rc, body, { stale: doc.stale, contentType: 'application/octet-stream' });
  },
};

const gems: KindRoute = {
  id: 'gem',
  match: (s) => (s.length === 2 && s[0] === 'gems' && s[1]!.endsWith('.gem') ? fileMatch(s[1]!, '.gem') : null),
  handle: (rc, m) => gemFile(rc, m.params!.base!, 'gem'),
};

const gemspec: KindRoute = {
  id: 'gemspec',
  match: (s) =>
    s.length === 3 && s[0] === 'quick' && s[1] === 'Marshal.4.8' && s[2]!.endsWith('.gemspec.rz')
      ? fileMatch(s[2]!, '.gemspec.rz')
      : null,
  handle: (rc, m) => gemFile(rc, m.params!.base!, 'gemspec'),
};

/** The specs entries of the gems published here, unlisted versions left out; and the names owned here. */
async function localSpecs(
  rc: RequestContext,
  file: SpecsFile,
): Promise<{ names: string[]; drop: Set<string>; items: ReturnType<typeof localSpecsItems> }> {
  const names = await localNames(rc);
  const drop = new Set<string>();
  const gems: GemMeta[] = [];
  for (const name of names) {
    if (!(await upstreamMayList(rc, name))) drop.add(name);
    const hidden = await rc.hiddenVersions(name);
    gems.push(...(await localGems(rc, name)).filter((g) => !isHidden(hidden, tokenOf(g))));
  }
  return { names, drop, items: localSpecsItems(gems, file) };
}

/** A hybrid (or local) specs document: the upstream's entries, unlisted and owned names left out, then the local ones. */
async function mergedSpecs(
  rc: RequestContext,
  file: string,
  local: Awaited<ReturnType<typeof localSpecs>>,
): Promise<Buffer> {
  if (rc.registry.mode === 'local') return mergeSpecs(null, local.drop, local.items);
  const doc = await rc.metadata({ key: file, url: `${rc.registry.upstream}/${file}`, check: checkGzip });
  let items;
  try {
    items = doc.derive('items', decodeSpecs);
  } catch (e) {
    throw errors.upstream(`the upstream's ${file} cannot be read: ${(e as Error).message}`);
  }
  // Too large to decode: the upstream's document as it is (bundler and gem's compact-index mode never read it).
  if (!items) return doc.body;
  const hidden =
    (await hiddenAmong(
      rc,
      doc.derive('gem-names', () => specsNames(items)),
    )) ?? new Map<string, ReadonlySet<string>>();
  const kept = items.filter((i) => {
    const e = entryOfItem(i);
    return !e || !isHidden(hidden.get(e.name) ?? new Set(), e.token);
  });
  return mergeSpecs(kept, local.drop, local.items);
}

/** `/api/v1/gems/<gem>.json` for a gem published here: its highest listed version, from the database. */
function localGemDoc(rc: RequestContext, m: GemMeta): GemDoc {
  const deps = (type: 'runtime' | 'development') =>
    m.dependencies
      .filter((d) => d.type === type)
      .map((d) => ({ name: d.name, requirements: requirementText(d.requirement, ', ') }));
  return {
    name: m.name,
    downloads: 0,
    version: m.version,
    platform: m.platform,
    authors: m.authors.join(', '),
    info: m.description || m.summary,
    licenses: m.licenses,
    metadata: m.metadata,
    yanked: false,
    sha: m.sha256,
    gem_uri: `${rc.baseUrl}/gems/${fileName(m.name, tokenOf(m))}.gem`,
    homepage_uri: m.homepage,
    dependencies: { development: deps('development'), runtime: deps('runtime') },
  };
}

/** packages/kind-rubygems/README.md: `/api/v1/gems/<gem>.json`. */
const gemApi: KindRoute = {
  id: 'gem-api',
  match: (s) =>
    s.length === 4 && s[0] === 'api' && s[1] === 'v1' && s[2] === 'gems' && s[3]!.endsWith('.json')
      ? { coordinate: { name: checkedName(s[3]!.slice(0, -5)) } }
      : null,
  async handle(rc, m) {
    const name = m.coordinate!.name;
    if (!(await upstreamMayList(rc, name))) {
      const hidden = await rc.hiddenVersions(name);
      const latest = latestListed(
        new Map((await localGems(rc, name)).map((g) => [tokenOf(g), entryOf(g)])),
        hidden,
      ) as ReturnType<typeof entryOf> | null;
      if (!latest?.local) throw errors.notFound(`${name} has no listed version published here`);
      return reply.json(localGemDoc(rc, latest.local), 200, { 'cache-control': 'no-cache' });
    }
    const doc = await rc.metadata({
      key: `gem-api:${name}`,
      url: `${rc.registry.upstream}/api/v1/gems/${name}.json`,
      check: checkGemDoc,
      packageName: name,
    });
    const parsed = doc.derive('parsed', (b) => JSON.parse(b.toString('utf8')) as GemDoc);
    let hidden = await rc.hiddenVersions(name);
    if (coolDown(rc) > 0) {
      // The described version and every upstream one the fallback could pick.
      const listed = [...(await listing(rc, name)).values()];
      const upstream = [
        ...new Set([docToken(parsed) ?? '', ...listed.filter((e) => !e.local).map((e) => e.token)]),
      ].filter(Boolean);
      hidden = await withCoolingDown(
        rc,
        name,
        hidden,
        upstream,
        listed.flatMap((e) => (e.local ? [e.local] : [])),
      );
    }
    const served = await serveGemDoc(parsed, {
      upstream: rc.registry.upstream!,
      baseUrl: rc.baseUrl,
      hidden,
      listing: () => listing(rc, name),
    });
    if (!served) throw errors.notFound(`${name} has no listed version`);
    return reply.json(served, 200, { 'cache-control': 'no-cache', ...(doc.stale ? { 'x-hub-stale': '1' } : {}) });
  },
};

export const routes: readonly KindRoute[] = [root, versions, names, info, specs, gems, gemspec, gemApi, push, yank];
