import { errors, reply, type KindRoute, type MetadataSpec, type Reply, type RequestContext } from '@hub/contract';
import { encodePathSegment, escapePath, isGoVersion, modulePath, unescapeElement } from './module-path.js';
import { compareGoVersions, isRelease } from './semver.js';
import { CONTENT_TYPES, deleteRoute, publishRoute, versionFileKey } from './publish.js';

export interface GoConfig {
  /** Base URL of the checksum database that `/sumdb/<db-name>/...` passes through to. */
  checksum_db?: string;
}

type Rc = RequestContext<GoConfig>;

const notHtml = (what: string) => (body: Buffer) => (/^\s*</.test(body.subarray(0, 64).toString('latin1')) ? `${what} looks like an HTML page` : null);
const checkInfo = (body: Buffer): string | null => {
  try {
    const v = JSON.parse(body.toString('utf8')) as { Version?: unknown };
    return typeof v.Version === 'string' ? null : 'no Version member';
  } catch {
    return 'not JSON';
  }
};

const upstreamUrl = (rc: Rc, module: string, tail: string) => `${rc.registry.upstream}/${escapePath(module)}/${tail}`;

function listSpec(rc: Rc, module: string): MetadataSpec {
  return { key: `list:${module}`, url: upstreamUrl(rc, module, '@v/list'), check: notHtml('version list') };
}

/** The upstream's list; none in a local registry, or for a module published here (local_only, never asked upstream). */
async function upstreamList(rc: Rc, module: string): Promise<string[] | null> {
  if (rc.registry.mode === 'local' || (rc.registry.mode === 'hybrid' && (await rc.local.ownsName(module)))) return null;
  try {
    const doc = await rc.metadata(listSpec(rc, module));
    return doc.derive('versions', (b) => b.toString('utf8').split('\n').map((l) => l.trim()).filter(Boolean));
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
  return [...new Set([...(upstream ?? []), ...local])].filter((v) => !hidden.has(v));
}

/** `.info` and `.mod` are immutable for a version, so they are cached like artifacts. */
function versionFile(rc: Rc, module: string, version: string, ext: 'info' | 'mod' | 'zip'): Promise<Reply> {
  const tail = `@v/${escapePath(version)}.${ext}`;
  return rc.artifact({
    key: versionFileKey(module, version, ext),
    coordinate: { name: module, version },
    contentType: CONTENT_TYPES[ext],
    ...(ext === 'zip' ? { format: 'zip' as const } : { checkHead: notHtml(`.${ext} file`) }),
    source: async () => ({ url: upstreamUrl(rc, module, tail) }),
  });
}

/**
 * `@latest`: the upstream's answer, unless it names an unlisted version; then the highest listed one. A module
 * published here (local registry, or hybrid with local versions or local_only) gets its highest listed version.
 */
async function latest(rc: Rc, module: string): Promise<Reply> {
  const askUpstream =
    rc.registry.mode === 'proxy' || (rc.registry.mode === 'hybrid' && (await rc.local.versions(module)).length === 0 && !(await rc.local.ownsName(module)));
  if (askUpstream) {
    const hidden = await rc.hiddenVersions(module);
    try {
      const doc = await rc.metadata({ key: `latest:${module}`, url: upstreamUrl(rc, module, '@latest'), check: checkInfo });
      const upstreamLatest = doc.derive('parsed', (b) => JSON.parse(b.toString('utf8')) as { Version?: string });
      if (upstreamLatest.Version && !hidden.has(upstreamLatest.Version)) return reply.bytes(doc.body, 'application/json', doc.stale ? { 'x-hub-stale': '1' } : {});
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
function parseModuleRequest(s: readonly string[]): { module: string; op: 'list' | 'latest' | 'info' | 'mod' | 'zip'; version?: string } | null {
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
  if (!m || !version || !isGoVersion(version)) throw errors.badRequest(`"${file.slice(0, 100)}" is not a module version file`);
  return { module, op: m[2] as 'info' | 'mod' | 'zip', version };
}

const moduleRoute: KindRoute<GoConfig> = {
  id: 'module',
  match(s) {
    if (s[0] === 'sumdb') return null;
    const r = parseModuleRequest(s);
    return r ? { coordinate: { name: r.module, version: r.version }, params: { op: r.op } } : null;
  },
  async handle(rc, m) {
    const { name, version } = m.coordinate!;
    const op = m.params!.op as 'list' | 'latest' | 'info' | 'mod' | 'zip';
    if (op === 'latest') return latest(rc, name);
    if (op === 'list') {
      const versions = await listed(rc, name);
      if (versions === null) throw errors.notFound(`${name} is not published in registry ${rc.registry.name}`);
      return reply.bytes(`${versions.join('\n')}\n`, 'text/plain; charset=utf-8');
    }
    return versionFile(rc, name, version!, op);
  },
};

/** `/sumdb/<db-name>/...` goes to the configured checksum database byte for byte (PROTOCOLS.md 3). */
const sumdbRoute: KindRoute<GoConfig> = {
  id: 'sumdb',
  match: (s) => (s[0] === 'sumdb' && s.length >= 3 ? { params: { rest: s.slice(2).map(encodePathSegment).join('/') } } : null),
  async handle(rc, m) {
    const base = rc.registry.config.checksum_db;
    if (!base) throw errors.notFound(`registry ${rc.registry.name} has no checksum_db configured`);
    return rc.passthrough(`${base}/${m.params!.rest}`);
  },
};

export const routes: readonly KindRoute<GoConfig>[] = [sumdbRoute, publishRoute, deleteRoute, moduleRoute];
