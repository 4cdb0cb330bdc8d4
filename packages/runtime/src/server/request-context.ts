import { pipeline, Transform, type Readable } from 'node:stream';
import type Koa from 'koa';
import {
  type ArtifactSpec,
  type Coordinate,
  errors,
  type HttpMethod,
  type HubAdvisory,
  HubError,
  type LocalRegistry,
  type MetadataDoc,
  type MetadataSpec,
  type PublishAction,
  type Reply,
  type RequestContext,
  type VersionLink,
} from '@hub/contract';
import type { AuditContext } from '../audit/access-event.js';
import type { ClientAddress } from './client-address.js';
import { guardFirstPublish } from './first-publish.js';
import type { BoundRegistry, RegistryRoutesDeps } from './registry-deps.js';
import { blockMessage, proxyRefusal } from './registry-refusals.js';

const SIGNED_URL_TTL_SECS = 600;

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
  return new RegistryRequestContext(ctx, d, reg, audit, anonymousRead, checked, checkResolved, user, via);
}

/**
 * A kind handler's view of one request. A class, not an object of closures: a hit builds one object per
 * request, its methods live on the prototype (decision 0075). Kinds call its methods on it (`rc.artifact(...)`).
 */
class RegistryRequestContext implements RequestContext {
  readonly registry: RequestContext['registry'];
  readonly method: HttpMethod;
  readonly headers: Record<string, string | undefined>;
  readonly upstream: RequestContext['upstream'];
  #local: LocalRegistry | undefined;
  #query: URLSearchParams | undefined;

  constructor(
    private readonly ctx: Koa.Context,
    private readonly d: RegistryRoutesDeps,
    private readonly reg: BoundRegistry,
    private readonly audit: AuditContext,
    readonly anonymousRead: boolean,
    private readonly checked: Coordinate | undefined,
    private readonly checkResolved: (c: Coordinate) => Promise<void>,
    readonly user: string | null,
    private readonly via: BoundRegistry | undefined,
  ) {
    this.registry = reg.info;
    this.method = ctx.method as HttpMethod;
    this.headers = ctx.headers as Record<string, string | undefined>;
    this.upstream = reg.upstream;
  }

  get #prefix(): string {
    return `/proxy/${encodeURIComponent((this.via ?? this.reg).info.name)}`;
  }

  // Only routes that hand out URLs need it; a Host nobody configured never reaches a document (or a memo key).
  #baseOf(): string {
    const { d, ctx } = this;
    if (d.publicUrl) return d.publicUrl;
    const client = ctx.state.client as ClientAddress | undefined;
    const host = client?.host ?? ctx.host;
    if (!d.servesHost(host))
      throw errors.badRequest(
        `this hub does not serve the host "${host.slice(0, 100)}": set [server] public_url, or list it in [server] allowed_hosts`,
      );
    // One spelling per host: letter-case variants would each key (and rebuild) their own rewritten documents.
    return `${client?.protocol ?? ctx.protocol}://${host.toLowerCase()}`;
  }

  get baseUrl(): string {
    return `${this.#baseOf()}${this.#prefix}`;
  }

  // Parsed when a route reads it (most hits do not).
  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.ctx.querystring));
  }

  // Read when used: the request's logger is made on first use (request-log), not for every hit.
  get log(): RequestContext['log'] {
    return this.ctx.state.log as RequestContext['log'];
  }

  get local(): LocalRegistry {
    const { reg, d, ctx } = this;
    if (reg.info.mode === 'proxy') throw proxyRefusal(reg.info.name);
    this.#local ??= guardFirstPublish(
      d.local.forRegistry(
        reg.info.name,
        reg.publishing,
        this.user,
        reg.kind.coordinate.normalizeName,
        reg.kind.coordinate.canonicalVersion,
      ),
      reg,
      d.local,
      () => ({ registry: reg.info, upstream: reg.upstream, log: ctx.state.log }),
    );
    return this.#local;
  }

  /**
   * Hybrid: a name published here (local_only) is never asked of the upstream. Path kinds have no package
   * names to confuse: a file published at a path is found first, any other path comes from the upstream.
   */
  async #upstreamMayServe(name: string): Promise<boolean> {
    const { reg } = this;
    return (
      reg.info.mode === 'proxy' ||
      (reg.info.mode === 'hybrid' && (reg.kind.addressing === 'path' || !(await this.local.ownsName(name))))
    );
  }

  async artifact(spec: ArtifactSpec): Promise<Reply> {
    const { audit, checked, reg, ctx } = this;
    audit.action = 'download';
    audit.package = spec.coordinate.name;
    audit.version = spec.coordinate.version;
    if (spec.coordinate.name !== checked?.name || spec.coordinate.version !== checked.version)
      await this.checkResolved(spec.coordinate);
    return this.d.artifacts.serve(
      reg.info,
      spec,
      reg.upstream,
      ctx.method === 'HEAD' ? 'HEAD' : 'GET',
      this.headers,
      () => this.#upstreamMayServe(spec.coordinate.name),
    );
  }

  metadata(spec: MetadataSpec): Promise<MetadataDoc> {
    return this.d.metadata.get(this.reg.info, spec, this.reg.upstream);
  }

  async passthrough(url: string, headers?: Record<string, string>): Promise<Reply> {
    const res = await this.reg.upstream.request(url, { headers });
    const out: Record<string, string> = {};
    for (const h of ['content-type', 'content-length', 'etag', 'last-modified', 'cache-control'])
      if (res.headers[h]) out[h] = res.headers[h]!;
    return { status: res.status, headers: out, body: res.body };
  }

  signedUrl(subpath: string, ttlSecs = SIGNED_URL_TTL_SECS): string {
    const prefix = this.#prefix;
    return `${this.#baseOf()}${prefix}/${subpath}?${this.d.signer.sign(`${prefix}/${subpath}`, ttlSecs)}`;
  }

  async hiddenVersions(name: string): Promise<ReadonlySet<string>> {
    const { d, reg, via } = this;
    if (!via) return d.blocks.hiddenVersions(reg.info.name, name);
    const [own, group] = await Promise.all([
      d.blocks.hiddenVersions(reg.info.name, name),
      d.blocks.hiddenVersions(via.info.name, name),
    ]);
    return group.size === 0 ? own : new Set([...own, ...group]);
  }

  // Through a group the links are the group's too, so a block on the group follows them (decision 0045).
  async linkVersions(name: string, from: string, to: readonly VersionLink[]): Promise<void> {
    const { d, reg, via } = this;
    if (!via) return d.blocks.link(reg.info.name, name, from, to);
    await Promise.all([d.blocks.link(reg.info.name, name, from, to), d.blocks.link(via.info.name, name, from, to)]);
  }

  async blockedVersions(name: string): Promise<ReadonlyMap<string, string>> {
    const { d, reg, via } = this;
    const out = new Map<string, string>();
    for (const [v, block] of await d.blocks.versionBlocks(reg.info.name, name))
      out.set(v, blockMessage({ name }, block));
    if (via)
      for (const [v, block] of await d.blocks.versionBlocks(via.info.name, name))
        if (!out.has(v)) out.set(v, blockMessage({ name }, block));
    return out;
  }

  keptPackages(): Promise<readonly string[]> {
    return this.d.keptPackages(this.reg.info.name);
  }

  async advisories(names: readonly string[]): Promise<readonly HubAdvisory[]> {
    const { d, reg } = this;
    if (d.advisories.length === 0 || names.length === 0) return [];
    // Links are made for the host the request named; an unserved host gets them without an origin, never a failed audit.
    let origin = '';
    try {
      origin = this.#baseOf();
    } catch {
      /* relative links */
    }
    return (await Promise.all(d.advisories.map((source) => source(reg.info.name, names, origin)))).flat();
  }

  async authorize(c: Coordinate): Promise<void> {
    const { checked } = this;
    if (c.name !== checked?.name || c.version !== checked.version) await this.checkResolved(c);
  }

  body(): Readable {
    return cappedBody(this.ctx, this.reg.publishing.maxPublishBytes);
  }

  recordAction(action: PublishAction, coordinate: Coordinate, detail?: string): void {
    const { d, reg, user } = this;
    Object.assign(this.audit, { action, package: coordinate.name, version: coordinate.version, detail });
    if (action === 'publish')
      d.onPackageEvent('package_published', {
        registry: reg.info.name,
        package: coordinate.name,
        version: coordinate.version,
        user,
      });
    // An unpublish of a whole npm package names no version: its detail lists them.
    if (action === 'unpublish')
      d.onPackageEvent('package_unpublished', {
        registry: reg.info.name,
        package: coordinate.name,
        version: coordinate.version,
        user,
        ...(detail ? { detail } : {}),
      });
  }
}

/** The request body, refused with 413 once it passes `max` bytes (at once when Content-Length says so). */
function cappedBody(ctx: Koa.Context, max: number): Readable {
  const tooLarge = () =>
    new HubError(
      'payload_too_large',
      `the request body may be at most ${max} bytes ([[registries]] max_publish_bytes)`,
    );
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
