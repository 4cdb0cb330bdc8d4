import { pipeline, Readable, Transform } from 'node:stream';
import type Koa from 'koa';
import { type Coordinate, errors, type HttpMethod, HubError, isHubError, type KindRoute, type LocalRegistry, type Reply, type RequestContext, type RouteMatch, splitSegments } from '@hub/contract';
import type { ArtifactCache } from '../cache/artifact-cache.js';
import type { MetadataCache } from '../cache/metadata-cache.js';
import type { AuditContext } from '../audit/access-event.js';
import type { BlockList } from '../policy/block-list.js';
import type { FoundBlock } from '../services/blocks.js';
import { ANONYMOUS, type AccessRequest, type Decision } from '../policy/decide.js';
import type { AccessControl } from '../policy/access-control.js';
import type { UrlSigner } from '../auth/signed-urls.js';
import type { ClientAddress } from './client-address.js';
import type { LocalStore } from '../services/local-store.js';
import { asDatabaseUnavailable } from '../storage/db.js';
import { forceAttachment } from './content-safety.js';
import { guardFirstPublish } from './first-publish.js';
import { serveGroup } from './group-dispatch.js';
import { representationReply } from './metadata-reply.js';

import type { AdvisorySource, RefusalRule, RefusalWaiver, ServedRegistry, Who } from '../contract/plugin.js';

export type BoundRegistry = ServedRegistry;

export interface RegistryRoutesDeps {
  registries: ReadonlyMap<string, BoundRegistry>;
  access: AccessControl;
  blocks: BlockList;
  artifacts: ArtifactCache;
  metadata: MetadataCache;
  publicUrl?: string;
  /** Without publicUrl: whether a request's Host (or trusted X-Forwarded-Host) may appear in the URLs hub hands out. */
  servesHost(host: string): boolean;
  signer: UrlSigner;
  /** Plugins' refusal rules (flags), applied after blocks. */
  refusals: readonly RefusalRule[];
  /** Plugins' waivers: a refusal one of them lifts for the request's subject is passed (decision 0067). */
  waivers?: readonly RefusalWaiver[];
  /** Plugins' advisories (flags), for audit routes. */
  advisories: readonly AdvisorySource[];
  local: LocalStore;
  /** Packages of a registry whose last good listing is kept (the upstream removed them). */
  keptPackages(registry: string): Promise<readonly string[]>;
  /** A version was published (`package_published`) or unpublished (`package_unpublished`): the event. */
  onPackageEvent(type: 'package_published' | 'package_unpublished', e: { registry: string; package: string; version?: string; user: string | null; detail?: string }): void;
  /** [limits] max_metadata_bytes: what a group reads of each member's listing before it merges them. */
  maxMetadataBytes?: number;
}

const SIGNED_URL_TTL_SECS = 600;
const DEFAULT_METHODS: readonly HttpMethod[] = ['GET', 'HEAD'];
const PREFIX = '/proxy/';

/** A 401 that also challenges for Basic, because maven, NuGet and pacman only send credentials after one. */
const challenge = (message: string) =>
  new HubError('unauthenticated', message, { headers: { 'WWW-Authenticate': 'Basic realm="hub", Bearer realm="hub"' } });

/** A write to a proxy registry: a route that publishes, or a handler that asks for the local store. */
const proxyRefusal = (registry: string) => new HubError('method_not_allowed', `registry "${registry}" is a proxy registry: publish to a local or hybrid registry`);

/** Any write to a group: publishes go to a member. */
const groupRefusal = (reg: BoundRegistry) => {
  const publishable = reg.group!.members.filter((m) => m.info.mode !== 'proxy').map((m) => `"${m.info.name}"`);
  return new HubError('method_not_allowed', `registry "${reg.info.name}" is a group registry: publish to one of its members${publishable.length ? ` (${publishable.join(', ')})` : ''}`);
};

/**
 * Dispatches `/proxy/<name>/...` (and `/<mount>/<name>/...` for kinds with a root mount) to the registry's kind. Before a kind's handler runs, the runtime
 * authenticates, decides the route's permission, and refuses blocked coordinates; `rc.artifact`
 * decides the permission (for another package) and checks blocks and refusal rules again when the
 * handler resolved another coordinate (npm `latest`, a gem file name with two readings).
 */
export function registryRoutes(d: RegistryRoutesDeps): Koa.Middleware {
  /** The path below a root mount (`/v2/`, decision 0025; `/proxy/` is split without a promise); the mount's own root names its registry. */
  async function mounted(ctx: Koa.Context): Promise<{ rest: string; base?: BoundRegistry } | undefined> {
    const first = ctx.path.split('/')[1] ?? '';
    // Registries of kinds whose clients address a registry at the host root, in config order.
    const regs = [...d.registries.values()].filter((r) => r.kind.rootMount !== undefined && r.kind.rootMount === first);
    if (regs.length === 0) return undefined;
    const rest = ctx.path.slice(first.length + 1);
    if (rest === '' || rest === '/') return { rest: '', base: await baseRegistry(ctx, regs) };
    return { rest: rest.slice(1) };
  }

  /** The mount's own root (`/v2/`, the version check): the first of its registries the request may read, else the first. */
  async function baseRegistry(ctx: Koa.Context, regs: BoundRegistry[]): Promise<BoundRegistry> {
    const subject = await d.access.subject(ctx).catch(() => ANONYMOUS);
    for (const reg of regs) if ((await d.access.decide({ subject, permission: 'source:read', registry: reg.info.name })).decision === 'allow') return reg;
    return regs[0]!;
  }

  return async (ctx, next) => {
    const at = ctx.path.startsWith(PREFIX) ? { rest: ctx.path.slice(PREFIX.length) } : await mounted(ctx);
    if (!at) return next();
    ctx.state.registryRequest = true;
    // Every registry request gets an audit row: `metadata` until the handler serves an artifact.
    const audit: AuditContext = { action: 'metadata' };
    ctx.state.audit = audit;
    const rest = at.rest;
    const slash = at.base ? -1 : rest.indexOf('/');
    const name = at.base ? at.base.info.name : decodeURIComponentSafe(slash === -1 ? rest : rest.slice(0, slash));
    const reg = d.registries.get(name);
    if (!reg) throw errors.notFound(`no registry named "${name}"`);
    // Below a mount, only registries of a kind mounted there.
    if (!ctx.path.startsWith(PREFIX) && reg.kind.rootMount !== ctx.path.split('/')[1]) throw errors.notFound(`no registry named "${name}" is served at /${ctx.path.split('/')[1]}/`);
    audit.registry = reg.info.name;
    if (reg.group) audit.via_group = reg.info.name;
    let routeId: string | undefined;
    try {
      // A group takes no writes: they go to one of its members (decision 0051).
      if (reg.group && !DEFAULT_METHODS.includes(ctx.method as HttpMethod)) throw groupRefusal(reg);
      const segments = slash === -1 ? [] : splitSegments(rest.slice(slash + 1));
      const where: Record<string, string> = { registry: reg.info.name, kind: reg.kind.id, route: '' };
      // The request line names the group, and the member that answered (group-dispatch).
      if (reg.group) where.group = reg.info.name;
      ctx.state.where = where;

      let found: { route: KindRoute; match: RouteMatch } | undefined;
      let methodMismatch = false;
      for (const route of reg.kind.routes) {
        // A match that throws (a malformed name) is this route's refusal, in the kind's error body too.
        routeId = route.id;
        const match = route.match(segments);
        if (!match) continue;
        if (!(route.methods ?? DEFAULT_METHODS).includes(ctx.method as HttpMethod)) {
          methodMismatch = true;
          continue;
        }
        found = { route, match };
        break;
      }
      routeId = found?.route.id;
      if (!found) {
        // One answer for every write a kind does not take, whatever the path (decision 0022).
        if (methodMismatch || !DEFAULT_METHODS.includes(ctx.method as HttpMethod)) throw new HubError('method_not_allowed', `${ctx.method} is not allowed here: ${reg.kind.id} registries take no such write`);
        throw errors.notFound(`no ${reg.kind.id} route matches this path in registry "${reg.info.name}"`);
      }
      const { route, match } = found;
      if (route.permission === 'source:write' && reg.info.mode === 'proxy') throw proxyRefusal(reg.info.name);
      if (route.permission === 'source:write' && reg.group) throw groupRefusal(reg);
      where.route = route.id;
      if (match.coordinate) {
        audit.package = match.coordinate.name;
        audit.version = match.coordinate.version;
        // A versioned coordinate is (almost always) a file; rc.artifact() settles it if the handler runs.
        if (match.coordinate.version !== undefined) audit.action = 'download';
      }

      const permission = route.permission === undefined ? 'source:read' : route.permission;
      const signed = route.signedAccess === true && d.signer.verify(ctx.path, new URLSearchParams(ctx.querystring));
      if (signed) audit.detail = 'signed URL';
      const subject = permission && !signed ? await d.access.require(ctx, permission, { registry: reg.info.name, package: match.coordinate?.name }, { challenge }) : undefined;
      const who = whoOf(subject);
      if (match.coordinate) noteWaived(audit, await refuseBlocked(d, reg.info.name, match.coordinate, who));
      // A coordinate the handler resolved (a gem file name that splits two ways) meets the same checks:
      // the permission for its package (as the access-check simulator decides it), then blocks and refusals.
      const checkResolved = async (c: Coordinate) => {
        if (subject && permission && c.name !== match.coordinate?.name) await d.access.authorize(ctx, subject, permission, { registry: reg.info.name, package: c.name }, { challenge });
        noteWaived(audit, await refuseBlocked(d, reg.info.name, c, who));
      };

      const anonymous = decision(d.access, { subject: ANONYMOUS, permission: 'source:read', registry: reg.info.name }, allowed);
      const anonymousRead = anonymous instanceof Promise ? await anonymous : anonymous;
      // A refusal above was labelled by the coordinate; from here on what the handler serves decides.
      audit.action = 'metadata';
      let reply: Reply;
      try {
        reply = reg.group
          ? await serveGroup(ctx, d, reg, { route, match, permission: signed ? null : permission, subject, anonymousRead, audit })
          : await route.handle(requestContext(ctx, d, reg, audit, anonymousRead, match.coordinate, checkResolved, subject?.user_id ?? null), match);
      } catch (thrown) {
        const e = asDatabaseUnavailable(thrown);
        if (isHubError(e)) throw e;
        // An unexpected error from a kind is logged with where it came from; the client sees a plain 500.
        ctx.state.log?.error({ err: { message: (e as Error)?.message, stack: (e as Error)?.stack }, ...where }, 'kind handler failed');
        throw errors.internal();
      }
      const shared = shareable(reply, () => !signed && (match.coordinate === undefined ? anonymousRead : decision(d.access, { subject: ANONYMOUS, permission: 'source:read', registry: reg.info.name, package: match.coordinate.name }, allowed)));
      // A memoised listing goes out as its representation: compressed once, ETag and 304 (decision 0074).
      const out = representationReply(shared instanceof Promise ? await shared : shared, ctx.req.headers, d.metadata.representations);
      send(ctx, out instanceof Promise ? await out : out);
    } catch (e) {
      // The kind may say the refusal in its client's own words too (npm prints an `npm-notice` header).
      if (isHubError(e) && reg.kind.errorHeaders) Object.assign(e.headers, reg.kind.errorHeaders({ status: e.status, code: e.code, message: e.message }));
      // And in its error body's own members (container clients print the OCI `errors` array).
      if (isHubError(e) && reg.kind.errorBody) ctx.state.errorBody = reg.kind.errorBody({ status: e.status, code: e.code, message: e.message, route: routeId, kindCode: typeof e.detail.kindCode === 'string' ? e.detail.kindCode : undefined });
      // And with `error` as text, for clients that print nothing else (npm).
      if (isHubError(e) && reg.kind.textErrors?.(ctx.headers as Record<string, string | undefined>)) ctx.state.textErrors = true;
      throw e;
    }
  };
}

/** What a 403 for a block says, and what a listing that marks the version refused (pypi's yanked) says. */
/** A block's refusal; a version refused through a link names the blocked one it belongs to (an OCI digest its blocked tag names). */
const blockMessage = (c: { name: string; version?: string }, block: Pick<FoundBlock, 'version' | 'blocked_by' | 'reason' | 'linked'>) => {
  const what = block.version === null ? `package ${c.name}` : block.linked ? `${c.name} ${c.version} belongs to ${c.name} ${block.version}, which` : `${c.name} ${block.version}`;
  return `${what} is blocked by ${block.blocked_by}${block.reason ? `: ${block.reason}` : ''}`;
};

/** The subject of a request as waivers see it (none for a signed URL: it carries no subject). */
export const whoOf = (s: { user_id: string | null; token_id: string | null } | undefined): Who | undefined => s && { user: s.user_id, tokenId: s.token_id };

/** The waiver that lifts `target` for `who`, or null; no waivers (or no subject: a signed URL) lift nothing, and no lookup is made. */
async function waiverFor(d: RegistryRoutesDeps, target: string, registry: string, c: Coordinate, who: Who | undefined): Promise<string | null> {
  if (!who || !d.waivers?.length) return null;
  for (const w of d.waivers) {
    const by = await w(target, registry, c, who);
    if (by) return by;
  }
  return null;
}

/**
 * Refuses (403 `package_blocked`) a coordinate that a block or a refusal rule refuses, unless a waiver lifts that
 * refusal for `who`. Resolves with the waivers that let it through (for the request's audit row), else [].
 */
export async function refuseBlocked(d: RegistryRoutesDeps, registry: string, c: Coordinate, who?: Who): Promise<string[]> {
  const lifted: string[] = [];
  const block = await d.blocks.find(registry, c);
  if (block) {
    const by = await waiverFor(d, `block:${block.id}`, registry, c, who);
    if (!by) throw errors.packageBlocked(blockMessage(c, block));
    lifted.push(`${by} lifts block ${block.id}`);
  }
  for (const rule of d.refusals) {
    const refused = await rule(registry, c);
    if (!refused) continue;
    if (typeof refused === 'string') throw errors.packageBlocked(refused);
    const by = await waiverFor(d, refused.target, registry, c, who);
    if (!by) throw errors.packageBlocked(refused.message);
    lifted.push(`${by} lifts ${refused.target}`);
  }
  return lifted;
}

/** Notes on the request's audit row the waivers that let it through a refusal. */
export const noteWaived = (audit: AuditContext, lifted: readonly string[]) => {
  if (lifted.length) audit.detail = [audit.detail, ...lifted].filter(Boolean).join('; ');
};

/**
 * `checked`: the coordinate the route was already checked against; an artifact for the same one is not
 * checked twice. `checkResolved` checks any other coordinate an artifact names. `via`: the group the
 * request came through (`reg` is its member): URLs point at the group, and its unlisting and blocks apply too.
 */
export function requestContext(
  ctx: Koa.Context,
  d: RegistryRoutesDeps,
  reg: BoundRegistry,
  audit: AuditContext,
  anonymousRead: boolean,
  checked: Coordinate | undefined,
  checkResolved: (c: Coordinate) => Promise<void>,
  user: string | null,
  via?: BoundRegistry,
): RequestContext {
  let local: LocalRegistry | undefined;
  let query: URLSearchParams | undefined;
  const localRegistry = (): LocalRegistry => {
    if (reg.info.mode === 'proxy') throw proxyRefusal(reg.info.name);
    local ??= guardFirstPublish(d.local.forRegistry(reg.info.name, reg.publishing, user, reg.kind.coordinate.normalizeName, reg.kind.coordinate.canonicalVersion), reg, d.local, () => ({ registry: reg.info, upstream: reg.upstream, log: ctx.state.log }));
    return local;
  };
  /**
   * Hybrid: a name published here (local_only) is never asked of the upstream. Path kinds have no package
   * names to confuse: a file published at a path is found first, any other path comes from the upstream.
   */
  const upstreamMayServe = async (name: string) =>
    reg.info.mode === 'proxy' || (reg.info.mode === 'hybrid' && (reg.kind.addressing === 'path' || !(await localRegistry().ownsName(name))));
  const client = ctx.state.client as ClientAddress | undefined;
  const prefix = `/proxy/${encodeURIComponent((via ?? reg).info.name)}`;
  // Only routes that hand out URLs need it; a Host nobody configured never reaches a document (or a memo key).
  const baseOf = (): string => {
    if (d.publicUrl) return d.publicUrl;
    const host = client?.host ?? ctx.host;
    if (!d.servesHost(host)) throw errors.badRequest(`this hub does not serve the host "${host.slice(0, 100)}": set [server] public_url, or list it in [server] allowed_hosts`);
    // One spelling per host: letter-case variants would each key (and rebuild) their own rewritten documents.
    return `${client?.protocol ?? ctx.protocol}://${host.toLowerCase()}`;
  };
  return {
    registry: reg.info,
    get baseUrl() {
      return `${baseOf()}${prefix}`;
    },
    method: ctx.method as HttpMethod,
    anonymousRead,
    headers: ctx.headers as Record<string, string | undefined>,
    // Parsed when a route reads it (most hits do not).
    get query() {
      return (query ??= new URLSearchParams(ctx.querystring));
    },
    // Read when used: the request's logger is made on first use (request-log), not for every hit.
    get log() {
      return ctx.state.log as RequestContext['log'];
    },
    upstream: reg.upstream,
    async artifact(spec) {
      audit.action = 'download';
      audit.package = spec.coordinate.name;
      audit.version = spec.coordinate.version;
      if (spec.coordinate.name !== checked?.name || spec.coordinate.version !== checked.version) await checkResolved(spec.coordinate);
      return d.artifacts.serve(reg.info, spec, reg.upstream, ctx.method === 'HEAD' ? 'HEAD' : 'GET', ctx.headers as Record<string, string | undefined>, () => upstreamMayServe(spec.coordinate.name));
    },
    metadata: (spec) => d.metadata.get(reg.info, spec, reg.upstream),
    async passthrough(url, headers) {
      const res = await reg.upstream.request(url, { headers });
      const out: Record<string, string> = {};
      for (const h of ['content-type', 'content-length', 'etag', 'last-modified', 'cache-control']) if (res.headers[h]) out[h] = res.headers[h]!;
      return { status: res.status, headers: out, body: res.body };
    },
    signedUrl: (subpath, ttlSecs = SIGNED_URL_TTL_SECS) => `${baseOf()}${prefix}/${subpath}?${d.signer.sign(`${prefix}/${subpath}`, ttlSecs)}`,
    hiddenVersions: via
      ? async (name) => {
          const [own, group] = await Promise.all([d.blocks.hiddenVersions(reg.info.name, name), d.blocks.hiddenVersions(via.info.name, name)]);
          return group.size === 0 ? own : new Set([...own, ...group]);
        }
      : (name) => d.blocks.hiddenVersions(reg.info.name, name),
    // Through a group the links are the group's too, so a block on the group follows them (decision 0045).
    linkVersions: via ? async (name, from, to) => void (await Promise.all([d.blocks.link(reg.info.name, name, from, to), d.blocks.link(via.info.name, name, from, to)])) : (name, from, to) => d.blocks.link(reg.info.name, name, from, to),
    async blockedVersions(name) {
      const out = new Map<string, string>();
      for (const [v, block] of await d.blocks.versionBlocks(reg.info.name, name)) out.set(v, blockMessage({ name }, block));
      if (via) for (const [v, block] of await d.blocks.versionBlocks(via.info.name, name)) if (!out.has(v)) out.set(v, blockMessage({ name }, block));
      return out;
    },
    keptPackages: () => d.keptPackages(reg.info.name),
    async advisories(names) {
      if (d.advisories.length === 0 || names.length === 0) return [];
      // Links are made for the host the request named; an unserved host gets them without an origin, never a failed audit.
      let origin = '';
      try {
        origin = baseOf();
      } catch {
        /* relative links */
      }
      return (await Promise.all(d.advisories.map((source) => source(reg.info.name, names, origin)))).flat();
    },
    user,
    authorize: async (c) => {
      if (c.name !== checked?.name || c.version !== checked.version) await checkResolved(c);
    },
    body: () => cappedBody(ctx, reg.publishing.maxPublishBytes),
    get local() {
      return localRegistry();
    },
    recordAction(action, coordinate, detail) {
      Object.assign(audit, { action, package: coordinate.name, version: coordinate.version, detail });
      if (action === 'publish') d.onPackageEvent('package_published', { registry: reg.info.name, package: coordinate.name, version: coordinate.version, user });
      // An unpublish of a whole npm package names no version: its detail lists them.
      if (action === 'unpublish') d.onPackageEvent('package_unpublished', { registry: reg.info.name, package: coordinate.name, version: coordinate.version, user, ...(detail ? { detail } : {}) });
    },
  };
}

/** The request body, refused with 413 once it passes `max` bytes (at once when Content-Length says so). */
function cappedBody(ctx: Koa.Context, max: number): Readable {
  const tooLarge = () => new HubError('payload_too_large', `the request body may be at most ${max} bytes ([[registries]] max_publish_bytes)`);
  const declared = Number(ctx.get('content-length'));
  if (Number.isFinite(declared) && declared > max) throw tooLarge();
  let seen = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      cb(seen > max ? tooLarge() : null, chunk);
    },
  });
  // A client that goes away mid-upload fails the read instead of leaving it waiting.
  pipeline(ctx.req, capped, () => {});
  return capped;
}

/** `then` of access.decide(), answered at once (no promise) when the policies in force are fresh in memory. */
function decision<T>(access: AccessControl, r: AccessRequest, then: (d: Decision) => T): T | Promise<T> {
  const now = access.decideNow(r);
  return now !== undefined ? then(now) : access.decide(r).then(then);
}
const allowed = (d: Decision) => d.decision === 'allow';

/**
 * Only what anyone may fetch without a token may sit in a shared cache (a CDN, a corporate proxy): a `public`
 * answer becomes `private` unless `anyoneMayRead`, asked only for answers that claim `public`.
 */
function shareable(reply: Reply, anyoneMayRead: () => boolean | Promise<boolean>): Reply | Promise<Reply> {
  const cc = reply.headers['cache-control'];
  if (cc === undefined || !/\bpublic\b/i.test(cc)) return reply;
  const anyone = anyoneMayRead();
  if (anyone === true) return reply;
  if (anyone === false) return privately(reply, cc);
  return anyone.then((ok) => (ok ? reply : privately(reply, cc)));
}
const privately = (reply: Reply, cc: string): Reply => ({ ...reply, headers: { ...reply.headers, 'cache-control': cc.replace(/\bpublic\b/i, 'private') } });

/**
 * Sends a kind's reply. Conditional GET is answered here for every kind: a 2xx whose ETag or
 * Last-Modified the client already holds (If-None-Match, If-Modified-Since, as Koa's `ctx.fresh`
 * reads them) becomes a 304 with the same headers and no body.
 */
function send(ctx: Koa.Context, reply: Reply) {
  ctx.status = reply.status;
  // Straight to the response: koa's set() builds arrays per header, on every hit.
  const res = ctx.res;
  if (!res.headersSent) {
    for (const name in reply.headers) res.setHeader(name, reply.headers[name]!);
    // A file a browser would render downloads instead, whatever type its publisher or upstream claimed (decision 0035).
    forceAttachment(res, ctx.path, reply.headers);
  }
  const body = reply.body;
  // ctx.fresh copies the response headers first; without a conditional header it is false anyway.
  const conditional = ctx.req.headers['if-none-match'] !== undefined || ctx.req.headers['if-modified-since'] !== undefined;
  if (conditional && ctx.fresh) {
    if (body instanceof Readable) body.destroy();
    ctx.status = 304;
    ctx.body = null;
    return;
  }
  if (body instanceof Readable) {
    if (ctx.method === 'HEAD') {
      body.destroy();
      return;
    }
    // A body that fails mid-way must not look like a complete response: drop the connection.
    body.once('error', () => ctx.res.destroy());
    // Clients that go away stop the read (and free its file descriptor).
    ctx.res.once('close', () => body.destroy());
  }
  ctx.body = body;
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw errors.badRequest('malformed percent-encoding in the path');
  }
}
