import type Koa from 'koa';
import {
  type Coordinate,
  errors,
  type HttpMethod,
  HubError,
  isHubError,
  type KindRoute,
  type Reply,
  type RouteMatch,
  splitSegments,
} from '@hub/contract';
import type { AuditContext } from '../audit/access-event.js';
import { ANONYMOUS, type AccessRequest } from '../policy/decide.js';
import { asDatabaseUnavailable } from '../storage/db.js';
import { serveGroup } from './group-dispatch.js';
import { representationReply } from './metadata-reply.js';
import type { BoundRegistry, RegistryRoutesDeps } from './registry-deps.js';
import { challenge, groupRefusal, noteWaived, proxyRefusal, refuseBlocked, whoOf } from './registry-refusals.js';
import { allowed, decision, send, shareable } from './registry-reply.js';
import { requestContext } from './request-context.js';

export type { BoundRegistry, RegistryRoutesDeps } from './registry-deps.js';

const DEFAULT_METHODS: readonly HttpMethod[] = ['GET', 'HEAD'];
const PREFIX = '/proxy/';
/** The routes' authorize options: a refused anonymous request is challenged for credentials. */
const CHALLENGE = Object.freeze({ challenge });

/** "May anyone read this registry?", one frozen question per registry (asked on every request). */
const anonymousReads = new WeakMap<object, AccessRequest>();
function anonymousReadOf(reg: BoundRegistry): AccessRequest {
  let r = anonymousReads.get(reg.info);
  if (!r)
    anonymousReads.set(
      reg.info,
      (r = Object.freeze({ subject: ANONYMOUS, permission: 'source:read', registry: reg.info.name })),
    );
  return r;
}

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
    for (const reg of regs)
      if ((await d.access.decide({ subject, permission: 'source:read', registry: reg.info.name })).decision === 'allow')
        return reg;
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
    if (!ctx.path.startsWith(PREFIX) && reg.kind.rootMount !== ctx.path.split('/')[1])
      throw errors.notFound(`no registry named "${name}" is served at /${ctx.path.split('/')[1]}/`);
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
        if (methodMismatch || !DEFAULT_METHODS.includes(ctx.method as HttpMethod))
          throw new HubError(
            'method_not_allowed',
            `${ctx.method} is not allowed here: ${reg.kind.id} registries take no such write`,
          );
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
      const target = { registry: reg.info.name, package: match.coordinate?.name };
      // From memory when it can be (no promise on a hit's memoised path), else the database is asked.
      const subject =
        permission && !signed
          ? (d.access.requireNow(ctx, permission, target, CHALLENGE) ??
            (await d.access.require(ctx, permission, target, CHALLENGE)))
          : undefined;
      const who = whoOf(subject);
      if (match.coordinate) {
        const lifted = refuseBlocked(d, reg.info.name, match.coordinate, who);
        noteWaived(audit, lifted instanceof Promise ? await lifted : lifted);
      }
      // A coordinate the handler resolved (a gem file name that splits two ways) meets the same checks:
      // the permission for its package (as the access-check simulator decides it), then blocks and refusals.
      const checkResolved = async (c: Coordinate) => {
        if (subject && permission && c.name !== match.coordinate?.name)
          await d.access.authorize(ctx, subject, permission, { registry: reg.info.name, package: c.name }, CHALLENGE);
        noteWaived(audit, await refuseBlocked(d, reg.info.name, c, who));
      };

      const anonymous = decision(d.access, anonymousReadOf(reg), allowed);
      const anonymousRead = anonymous instanceof Promise ? await anonymous : anonymous;
      // A refusal above was labelled by the coordinate; from here on what the handler serves decides.
      audit.action = 'metadata';
      let reply: Reply;
      try {
        reply = reg.group
          ? await serveGroup(ctx, d, reg, {
              route,
              match,
              permission: signed ? null : permission,
              subject,
              anonymousRead,
              audit,
            })
          : await route.handle(
              requestContext(
                ctx,
                d,
                reg,
                audit,
                anonymousRead,
                match.coordinate,
                checkResolved,
                subject?.user_id ?? null,
              ),
              match,
            );
      } catch (thrown) {
        const e = asDatabaseUnavailable(thrown);
        if (isHubError(e)) throw e;
        // An unexpected error from a kind is logged with where it came from; the client sees a plain 500.
        ctx.state.log?.error(
          { err: { message: (e as Error)?.message, stack: (e as Error)?.stack }, ...where },
          'kind handler failed',
        );
        throw errors.internal();
      }
      const shared = shareable(
        reply,
        () =>
          !signed &&
          (match.coordinate === undefined
            ? anonymousRead
            : decision(
                d.access,
                {
                  subject: ANONYMOUS,
                  permission: 'source:read',
                  registry: reg.info.name,
                  package: match.coordinate.name,
                },
                allowed,
              )),
      );
      // A memoised listing goes out as its representation: compressed once, ETag and 304 (decision 0074).
      const out = representationReply(
        shared instanceof Promise ? await shared : shared,
        ctx.req.headers,
        d.metadata.representations,
      );
      send(ctx, out instanceof Promise ? await out : out);
    } catch (e) {
      // The kind may say the refusal in its client's own words too (npm prints an `npm-notice` header).
      if (isHubError(e) && reg.kind.errorHeaders)
        Object.assign(e.headers, reg.kind.errorHeaders({ status: e.status, code: e.code, message: e.message }));
      // And in its error body's own members (container clients print the OCI `errors` array).
      if (isHubError(e) && reg.kind.errorBody)
        ctx.state.errorBody = reg.kind.errorBody({
          status: e.status,
          code: e.code,
          message: e.message,
          route: routeId,
          kindCode: typeof e.detail.kindCode === 'string' ? e.detail.kindCode : undefined,
        });
      // And with `error` as text, for clients that print nothing else (npm).
      if (isHubError(e) && reg.kind.textErrors?.(ctx.headers as Record<string, string | undefined>))
        ctx.state.textErrors = true;
      throw e;
    }
  };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    throw errors.badRequest('malformed percent-encoding in the path');
  }
}
