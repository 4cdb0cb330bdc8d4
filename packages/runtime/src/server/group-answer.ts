import { Readable } from 'node:stream';
import type Koa from 'koa';
import { errors, type HubError, isHubError, type Reply } from '@hub/contract';
import type { AuditContext } from '../audit/access-event.js';
import { asDatabaseUnavailable } from '../storage/db.js';
import type { GroupRequest } from './group-request.js';
import type { BoundRegistry, RegistryRoutesDeps } from './registry-deps.js';
import { noteWaived, refuseBlocked, whoOf } from './registry-refusals.js';
import { requestContext } from './request-context.js';

/** A member's answer: a reply, a 404/410 (`absent`), or the error it failed with. */
export type Answer =
  | { member: BoundRegistry; audit: AuditContext; reply: Reply }
  | { member: BoundRegistry; audit: AuditContext; absent: true }
  | { member: BoundRegistry; audit: AuditContext; error: HubError };

const isAbsent = (status: number) => status === 404 || status === 410;

/** Runs the route for one member: its own blocks first, then its handler, with the group's base URL. */
export async function answer(
  ctx: Koa.Context,
  d: RegistryRoutesDeps,
  group: BoundRegistry,
  r: GroupRequest,
  member: BoundRegistry,
): Promise<Answer> {
  const audit: AuditContext = {
    action: r.audit.action,
    package: r.audit.package,
    version: r.audit.version,
    registry: member.info.name,
  };
  try {
    if (r.match.coordinate)
      noteWaived(audit, await refuseBlocked(d, member.info.name, r.match.coordinate, whoOf(r.subject)));
    // A coordinate the handler resolves (npm `latest`) meets the member's blocks and the group's.
    const checkResolved = async (c: { name: string; version?: string }) => {
      if (r.subject && r.permission && c.name !== r.match.coordinate?.name)
        await d.access.authorize(ctx, r.subject, r.permission, { registry: member.info.name, package: c.name });
      noteWaived(audit, await refuseBlocked(d, group.info.name, c, whoOf(r.subject)));
      noteWaived(audit, await refuseBlocked(d, member.info.name, c, whoOf(r.subject)));
    };
    const rc = requestContext(
      ctx,
      d,
      member,
      audit,
      r.anonymousRead,
      undefined,
      checkResolved,
      r.subject?.user_id ?? null,
      group,
    );
    const reply = await r.route.handle(rc, r.match);
    if (isAbsent(reply.status)) {
      dispose(reply);
      return { member, audit, absent: true };
    }
    return { member, audit, reply };
  } catch (thrown) {
    const e = asDatabaseUnavailable(thrown);
    if (isHubError(e)) return isAbsent(e.status) ? { member, audit, absent: true } : { member, audit, error: e };
    ctx.state.log?.error(
      {
        err: { message: (e as Error)?.message, stack: (e as Error)?.stack },
        registry: group.info.name,
        member: member.info.name,
        route: r.route.id,
      },
      'kind handler failed',
    );
    return { member, audit, error: errors.internal() };
  }
}

/** The request line's fields (registry-routes), where the member that answered is named. */
export const where = (ctx: Koa.Context) => ctx.state.where as Record<string, unknown> | undefined;

/** The request's audit row and log line name the member whose answer is served, and the group. */
export function servedBy(ctx: Koa.Context, audit: AuditContext, a: Answer, group: BoundRegistry): void {
  Object.assign(audit, a.audit, { registry: a.member.info.name, via_group: group.info.name });
  const w = where(ctx);
  if (w) w.member = a.member.info.name;
}

/** Lets go of an answer that is not served (its stream, if any). */
export function dispose(reply: Reply): void {
  if (reply.body instanceof Readable) reply.body.destroy();
}
