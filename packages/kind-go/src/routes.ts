import { errors, reply, type KindRoute, type MetadataSpec, type Reply, type RequestContext } from '@hub/contract';
import { encodePathSegment, escapePath, isGoVersion, modulePath, unescapeElement } from './module-path.js';
import { compareGoVersions, isRelease } from './semver.js';
import { CONTENT_TYPES, deleteRoute, publishRoute, versionFileKey } from './publish.js';
import type { GoConfig } from './go-config.js';

export type { GoConfig } from './go-config.js';

type Rc = RequestContext<GoConfig>;

const notHtml = (what: string) => (body: Buffer) =>
  /^\s*</.test(body.subarray(0, 64).toString('latin1')) ? `${what} looks like an HTML page` : null;
const checkInfo = (body: Buffer): string | null => {
  try {
    const v = JSON.parse(body.toString('utf8')) as { Version?: unknown };
    return typeof v.Version === 'string' ? null : 'no Version member';
  } catch {
    return 'not JSON';
  }
};

const upstreamUrl = (rc: Pick<Rc, 'registry'>, module: string, tail: string) =>
  `${rc.registry.upstream}/${escapePath(module)}/${tail}`;

/** The registry's cool-down in seconds (`[registries.security] min_release_age_secs`; 0: none). */
const coolDown = (rc: Rc): number => rc.registry.minReleaseAgeSecs ?? 0;

/** A `.info` never changes for a version: its time is read once and kept (as a metadata document, for listings). */
const INFO_TTL_SECS = 30 * 86400;

/** When the upstream's `.info` says `version` was published; null when it names no (valid) `Time`. */
async function publishTime(rc: Rc, module: string, version: string): Promise<Date | null> {
  const doc = await rc.metadata({
    key: `info:${module}@${version}`,
    url: upstreamUrl(rc, module, `@v/${escapePath(version)}.info`),
    check: checkInfo,
    ttlSecs: INFO_TTL_SECS,
  });
  return doc.derive('time', (b) => timeOf(JSON.parse(b.toString('utf8')) as { Time?: unknown }));
}

const timeOf = (info: { Time?: unknown }): Date | null => {
  const at = typeof info.Time === 'string' ? Date.parse(info.Time) : NaN;
  return Number.isFinite(at) ? new Date(at) : null;
};

/**
 * Whether a version is old enough for the cool-down. A version without a readable time cannot be proven old
 * enough, so it is not (nor is one whose `.info` the upstream will not give).
 */
const oldEnough = (at: Date | null, secs: number): boolean => at !== null && Date.now() - at.getTime() >= secs * 1000;

/** The upstream versions old enough for the cool-down, asking at most 8 `.info` files at a time. */
async function oldEnoughVersions(rc: Rc, module: string, versions: readonly string[]): Promise<string[]> {
  const secs = coolDown(rc);
  const keep = new Array<boolean>(versions.length).fill(false);
  for (let i = 0; i < versions.length; i += 8)
    await Promise.all(
      versions.slice(i, i + 8).map(async (v, j) => {
        keep[i + j] = oldEnough(await publishTime(rc, module, v).catch(() => null), secs);
      }),
    );
  return versions.filter((_, i) => keep[i]);
}

/** `@v/list`; kept (the last good copy served) when the upstream removes the module. */
export function listSpec(rc: Pick<Rc, 'registry'>, module: string): MetadataSpec {
  return {
    key: `list:${module}`,
    url: upstreamUrl(rc, module, '@v/list'),
    check: notHtml('version list'),
    packageName: module,
  };
}

export const listVersions = (b: Buffer): string[] =>
  b
    .toString('utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/** The upstream's list; none in a local registry, or for a module published here (local_only, never asked upstream). */
async function upstreamList(rc: Rc, module: string): Promise<string[] | null> {
  if (rc.registry.mode === 'local' || (rc.registry.mode === 'hybrid' && (await rc.local.ownsName(module)))) return null;
  try {
    const doc = await rc.metadata(listSpec(rc, module));
    const versions = doc.derive('versions', listVersions);
    // A kept list (the upstream removed the module) offers only the versions hub holds.
    return doc.kept ? versions.filter((v) => doc.kept!.heldVersions.has(v)) : versions;
  } catch (e) {
    // Hybrid: a module only published here is unknown upstream.
    if (rc.registry.mode === 'hybrid' && (e as { code?: string }).code === 'not_found') return null;
    throw e;
  }
}

/**
 * Versions to list: the upstream's, merged with those published here (hybrid), unlisted ones dropped. null when
 * nothing knows the module.
 */
async function listed(rc: Rc, module: string): Promise<string[] | null> {
  const local = rc.registry.mode === 'proxy' ? [] : (await rc.local.versions(module)).map((v) => v.version);
  const upstream = await upstreamList(rc, module);
  if (upstream === null && local.length === 0) return null;
  const hidden = await rc.hiddenVersions(module);
  // The cool-down applies to upstream versions; those published here are this registry's own.
  const fromUpstream =
    upstream && coolDown(rc) > 0
      ? await oldEnoughVersions(
          rc,
          module,
          upstream.filter((v) => !local.includes(v) && !hidden.has(v)),
        )
      : (upstream ?? []);
  return [...new Set([...fromUpstream, ...local])].filter((v) => !hidden.has(v));
}

/** `.info` and `.mod` are immutable for a version, so they are cached like artifacts. */
function versionFile(rc: Rc, module: string, version: string, ext: 'info' | 'mod' | 'zip'): Promise<Reply> {
  const tail = `@v/${escapePath(version)}.${ext}`;
  return rc.artifact({
    key: versionFileKey(module, version, ext),
    coordinate: { name: module, version },
    contentType: CONTENT_TYPES[ext],
    ...(ext === 'zip' ? { format: 'zip' as const } : { checkHead: notHtml(`.${ext} file`) }),
    source: async () => ({
      url: upstreamUrl(rc, module, tail),
      publishedAt: coolDown(rc) > 0 ? await coolDownTime(rc, module, version) : undefined,
    }),
  });
}

/** The publish time the runtime checks the cool-down against; a version without one is refused here. */
async function coolDownTime(rc: Rc, module: string, version: string): Promise<Date> {
  const at = await publishTime(rc, module, version);
  if (!at)
    throw errors.packageBlocked(
      `${module} ${version} has no publish time upstream, so it cannot be shown to be older than the registry's min_release_age_secs (${coolDown(rc)})`,
    );
  return at;
}

/**
 * `@latest`: the upstream's answer, unless it names an unlisted version or one within the cool-down; then the highest listed one. A module
 * published here (local registry, or hybrid with local versions or local_only) gets its highest listed version.
 */
async function latest(rc: Rc, module: string): Promise<Reply> {
  const askUpstream =
    rc.registry.mode === 'proxy' ||
    (rc.registry.mode === 'hybrid' &&
      (await rc.local.versions(module)).length === 0 &&
      !(await rc.local.ownsName(module)));
  if (askUpstream) {
    const hidden = await rc.hiddenVersions(module);
    try {
      const doc = await rc.metadata({
        key: `latest:${module}`,
        url: upstreamUrl(rc, module, '@latest'),
        check: checkInfo,
        packageName: module,
      });
      const upstreamLatest = doc.derive(
        'parsed',
        (b) => JSON.parse(b.toString('utf8')) as { Version?: string; Time?: unknown },
      );
      const coolDownOk = coolDown(rc) === 0 || oldEnough(timeOf(upstreamLatest), coolDown(rc));
      const held = !doc.kept || doc.kept.heldVersions.has(upstreamLatest.Version ?? '');
      if (upstreamLatest.Version && !hidden.has(upstreamLatest.Version) && coolDownOk && held)
        return reply.bytes(doc.body, 'application/json', doc.stale ? { 'x-hub-stale': '1' } : {});
    } catch (e) {
      if (!(e as { code?: string }).code || (e as { code?: string }).code !== 'not_found') throw e;
    }
  }
  const versions = ((await listed(rc, module)) ?? []).sort(compareGoVersions);
  const pick = versions.filter(isRelease).at(-1) ?? versions.at(-1);
  if (!pick) throw errors.notFound(`no listed version of ${module}`);
  return versionFile(rc, module, pick, 'info');
}

/** Splits `<module>/@v/<file>` or `<module>/@latest`. */
function parseModuleRequest(
  s: readonly string[],
): { module: string; op: 'list' | 'latest' | 'info' | 'mod' | 'zip'; version?: string } | null {
  if (s.at(-1) === '@latest') {
    const module = modulePath(s.slice(0, -1));
    return module ? { module, op: 'latest' } : null;
  }
  const at = s.length - 2;
  if (at < 1 || s[at] !== '@v') return null;
  const module = modulePath(s.slice(0, at));
  if (!module) throw errors.badRequest('malformed module path');
  const file = s[at + 1]!;
  if (file === 'list') return { module, op: 'list' };
  const m = /^(.+)\.(info|mod|zip)$/.exec(file);
  const version = m ? unescapeElement(m[1]!) : null;
  if (!m || !version || !isGoVersion(version))
    throw errors.badRequest(`"${file.slice(0, 100)}" is not a module version file`);
  return { module, op: m[2] as 'info' | 'mod' | 'zip', version };
}

/** `<module>/@v/list`, a route of its own: a group merges it from every member (version files are not merged). */
const listRoute: KindRoute<GoConfig> = {
  id: 'list',
  match(s) {
    if (s[0] === 'sumdb' || s.at(-1) !== 'list') return null;
    const r = parseModuleRequest(s);
    return r?.op === 'list' ? { coordinate: { name: r.module } } : null;
  },
  async handle(rc, m) {
    const name = m.coordinate!.name;
    const versions = await listed(rc, name);
    if (versions === null) throw errors.notFound(`${name} is not published in registry ${rc.registry.name}`);
    return reply.bytes(`${versions.join('\n')}\n`, 'text/plain; charset=utf-8');
  },
};

const moduleRoute: KindRoute<GoConfig> = {
  id: 'module',
  match(s) {
    if (s[0] === 'sumdb') return null;
    const r = parseModuleRequest(s);
    return r && r.op !== 'list' ? { coordinate: { name: r.module, version: r.version }, params: { op: r.op } } : null;
  },
  async handle(rc, m) {
    const { name, version } = m.coordinate!;
    const op = m.params!.op as 'latest' | 'info' | 'mod' | 'zip';
    if (op === 'latest') return latest(rc, name);
    return versionFile(rc, name, version!, op);
  },
};

/** `/sumdb/<db-name>/...` goes to the configured checksum database byte for byte (packages/kind-go/README.md). */
const sumdbRoute: KindRoute<GoConfig> = {
  id: 'sumdb',
  match: (s) =>
    s[0] === 'sumdb' && s.length >= 3 ? { params: { rest: s.slice(2).map(encodePathSegment).join('/') } } : null,
  async handle(rc, m) {
    const base = rc.registry.config.checksum_db;
    if (!base) throw errors.notFound(`registry ${rc.registry.name} has no checksum_db configured`);
    return rc.passthrough(`${base}/${m.params!.rest}`);
  },
};

export const routes: readonly KindRoute<GoConfig>[] = [sumdbRoute, publishRoute, deleteRoute, listRoute, moduleRoute];
