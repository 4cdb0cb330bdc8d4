/**
 * Serves a request to a group registry (`mode = "group"`, decision 0051) from its members. The kind's route
 * matched once, on the group's path; here the same route runs for member registries, each with its own
 * RequestContext (its config, upstream client, cache keys, local store, unlisting, blocks, cool-down) but with
 * the group's base URL, so the URLs a member writes into its documents point at the group.
 *
 * Routes the kind names in `group.merge` are listings: every eligible member is asked at once, their 200
 * answers are read (within the metadata byte cap) and merged by the kind. Every other route goes to the
 * members in order and the first answer that is not a 404 or 410 is served: an artifact is cached under the
 * member that answered, never a second time under the group.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type Koa from 'koa';
import {
  errors,
  type GroupAsk,
  type GroupPart,
  HubError,
  isHubError,
  type KindRoute,
  type Reply,
  type RouteMatch,
} from '@hub/contract';
import { readCapped } from '@hub/contract';
import type { AuditContext } from '../audit/access-event.js';
import type { Subject } from '../policy/decide.js';
import { asDatabaseUnavailable } from '../storage/db.js';
import { eligibleMembers } from './group-members.js';
import type { BoundRegistry, RegistryRoutesDeps } from './registry-deps.js';
import { noteWaived, refuseBlocked, whoOf } from './registry-refusals.js';
import { requestContext } from './request-context.js';

/** What the group's own checks settled before its members are asked. */
export interface GroupRequest {
  route: KindRoute;
  match: RouteMatch;
  /** The route's permission, and who asks (absent for a signed URL or a route without a permission). */
  permission: Parameters<RegistryRoutesDeps['access']['decide']>[0]['permission'] | null;
  subject?: Subject;
  anonymousRead: boolean;
  /** The request's audit row: it names the member that served and the group. */
  audit: AuditContext;
}

/** A member's answer: a reply, a 404/410 (`absent`), or the error it failed with. */
type Answer =
  | { member: BoundRegistry; audit: AuditContext; reply: Reply }
  | { member: BoundRegistry; audit: AuditContext; absent: true }
  | { member: BoundRegistry; audit: AuditContext; error: HubError };

const isAbsent = (status: number) => status === 404 || status === 410;
/** Server-side failures: the next member is asked; the first is served only when no member answers. */
const isFailure = (status: number) => status >= 500;

export async function serveGroup(
  ctx: Koa.Context,
  d: RegistryRoutesDeps,
  group: BoundRegistry,
  r: GroupRequest,
): Promise<Reply> {
  const members = await askable(d, group, r);
  const merge = group.kind.group?.merge[r.route.id];
  const lists =
    merge !== undefined &&
    (group.kind.group?.lists?.(r.route.id, {
      headers: ctx.headers as Record<string, string | undefined>,
      query: new URLSearchParams(ctx.querystring),
    }) ??
      true);
  if (lists) return mergedListing(ctx, d, group, r, members, merge);
  let failed: Extract<Answer, { error: HubError }> | undefined;
  for (const m of members) {
    const a = await answer(ctx, d, group, r, m);
    if ('absent' in a) continue;
    if ('error' in a && isFailure(a.error.status)) {
      failed ??= a;
      continue;
    }
    servedBy(ctx, r.audit, a, group);
    if ('error' in a) throw a.error;
    return a.reply;
  }
  if (failed) {
    servedBy(ctx, r.audit, failed, group);
    throw failed.error;
  }
  throw errors.notFound(notFoundMessage(group, r, members));
}

/** Every eligible member's 200 answer, merged by the kind (one is served as it is). */
async function mergedListing(
  ctx: Koa.Context,
  d: RegistryRoutesDeps,
  group: BoundRegistry,
  r: GroupRequest,
  members: readonly BoundRegistry[],
  merge: NonNullable<BoundRegistry['kind']['group']>['merge'][string],
): Promise<Reply> {
  // A byte range or a validator is for the merged document: a member answering 206 or 304 would be left out.
  const answers = await Promise.all(members.map((m) => answer(memberView(ctx), d, group, r, m)));
  // A redirect to the listing's one spelling (pypi's normalised project name): the first member's, when none lists it here.
  const redirect = answers.find(
    (a): a is Extract<Answer, { reply: Reply }> =>
      'reply' in a && a.reply.status >= 300 && a.reply.status < 400 && Boolean(a.reply.headers.location),
  );
  const parts = await okParts(answers, d);
  if (parts.length === 0 && redirect) {
    servedBy(ctx, r.audit, redirect, group);
    const body = redirect.reply.body;
    return {
      ...redirect.reply,
      body: typeof body === 'string' || Buffer.isBuffer(body) ? body : `moved to ${redirect.reply.headers.location}\n`,
    };
  }
  if (parts.length === 0) {
    // No member lists it: the first refusal or failure says why, else it is not there.
    const failed = answers.find((a): a is Extract<Answer, { error: HubError }> => 'error' in a);
    if (failed) {
      servedBy(ctx, r.audit, failed, group);
      throw failed.error;
    }
    throw errors.notFound(notFoundMessage(group, r, members));
  }
  for (const a of answers)
    if ('error' in a)
      ctx.state.log?.warn(
        { member: a.member.info.name, code: a.error.code, err: a.error.message },
        'group member left out of a merged listing',
      );
  if (parts.length === 1) {
    servedBy(ctx, r.audit, parts[0]!.answer, group);
    const only = parts[0]!;
    return { ...(only.answer as Extract<Answer, { reply: Reply }>).reply, body: only.body };
  }
  // Merged: the group served it, from these members.
  Object.assign(r.audit, {
    registry: group.info.name,
    via_group: group.info.name,
    detail: `merged from ${parts.map((p) => p.member).join(', ')}`,
  });
  if (where(ctx)) where(ctx)!.member = parts.map((p) => p.member).join(',');
  const rc = requestContext(
    ctx,
    d,
    group,
    r.audit,
    r.anonymousRead,
    r.match.coordinate,
    async () => {},
    r.subject?.user_id ?? null,
  );
  const merged = await merge(
    rc,
    parts.map(({ answer: _a, ...p }) => p),
    r.match,
    groupAsk(ctx, d, group, r),
  );
  // The runtime answers If-None-Match from an ETag: a merged document without one gets its bytes' digest.
  if (Buffer.isBuffer(merged.body) && !Object.keys(merged.headers).some((h) => h.toLowerCase() === 'etag'))
    return {
      ...merged,
      headers: { ...merged.headers, etag: `"${createHash('sha256').update(merged.body).digest('hex')}"` },
    };
  return merged;
}

const where = (ctx: Koa.Context) => ctx.state.where as Record<string, unknown> | undefined;

/**
 * The members' 200 answers, bodies read within the metadata byte cap; other answers are let go. A body too
 * large (or cut short) becomes that member's error in `answers`: its listing is left out like a failed one.
 */
async function okParts(answers: Answer[], d: RegistryRoutesDeps): Promise<Array<GroupPart & { answer: Answer }>> {
  const cap = d.maxMetadataBytes ?? 64 * 1024 * 1024;
  const parts: Array<GroupPart & { answer: Answer }> = [];
  for (const [i, a] of answers.entries()) {
    if (!('reply' in a)) continue;
    if (a.reply.status !== 200) {
      dispose(a.reply);
      continue;
    }
    try {
      const body = await readBody(a.reply, cap, a.member.info.name);
      parts.push({
        member: a.member.info.name,
        mode: a.member.info.mode as GroupPart['mode'],
        status: 200,
        headers: a.reply.headers,
        body,
        answer: a,
      });
    } catch (e) {
      dispose(a.reply);
      answers[i] = {
        member: a.member,
        audit: a.audit,
        error: isHubError(e) ? e : errors.upstream(`registry "${a.member.info.name}"'s listing could not be read`),
      };
    }
  }
  return parts;
}

/** Request headers a member asked for a merged listing does not see: they are about the merged document. */
const FOR_THE_MERGE = new Set([
  'range',
  'if-range',
  'if-none-match',
  'if-modified-since',
  'if-match',
  'if-unmodified-since',
]);

/** The request as a member of a merged listing sees it: without range and validator headers, with `query` if given. */
function memberView(ctx: Koa.Context, query?: URLSearchParams): Koa.Context {
  const headers = Object.fromEntries(Object.entries(ctx.headers).filter(([k]) => !FOR_THE_MERGE.has(k.toLowerCase())));
  const view = Object.create(ctx) as Koa.Context;
  Object.defineProperty(view, 'headers', { value: headers });
  Object.defineProperty(view, 'header', { value: headers });
  if (query) Object.defineProperty(view, 'querystring', { value: query.toString() });
  return view;
}

/** How many other requests one merge may ask of the members (rubygems' `/versions` asks up to 256 `/info` files). */
const MAX_ASKS_PER_MERGE = 512;

/**
 * `GroupAsk` (decision 0053): the members' 200 answers to another listing request of the group's kind, under the
 * same rules as the request (member rules, the closed-by-default rule, the subject's permission, blocks on the
 * group and on each member). Only routes the kind merges may be asked: a merge never pulls artifacts.
 */
function groupAsk(ctx: Koa.Context, d: RegistryRoutesDeps, group: BoundRegistry, r: GroupRequest): GroupAsk {
  let asked = 0;
  return async (segments, query) => {
    if (++asked > MAX_ASKS_PER_MERGE)
      throw errors.upstream(
        `a merged listing of group "${group.info.name}" asked its members more than ${MAX_ASKS_PER_MERGE} times`,
      );
    let found: { route: KindRoute; match: RouteMatch } | undefined;
    for (const route of group.kind.routes) {
      if (!group.kind.group?.merge[route.id]) continue;
      const match = route.match(segments);
      if (match) {
        found = { route, match };
        break;
      }
    }
    if (!found) return [];
    if (found.match.coordinate) {
      try {
        await refuseBlocked(d, group.info.name, found.match.coordinate, whoOf(r.subject));
      } catch {
        return [];
      }
    }
    const sub: GroupRequest = { ...r, route: found.route, match: found.match, audit: { ...r.audit } };
    const view = memberView(ctx, query ?? new URLSearchParams());
    const answers = await Promise.all((await askable(d, group, sub)).map((m) => answer(view, d, group, sub, m)));
    return (await okParts(answers, d)).map(({ answer: _a, ...p }) => p);
  };
}

/** The members this request may be asked of: routing rules, the closed-by-default rule, then the subject's own permission on each. */
async function askable(d: RegistryRoutesDeps, group: BoundRegistry, r: GroupRequest): Promise<BoundRegistry[]> {
  const eligible = await eligibleMembers(group, d.local, r.match.coordinate, r.subject?.user_id ?? null);
  if (!r.subject || !r.permission) return eligible;
  const permission = r.permission;
  const subject = r.subject;
  const allowed = await Promise.all(
    eligible.map(
      async (m) =>
        (await d.access.decide({ subject, permission, registry: m.info.name, package: r.match.coordinate?.name }))
          .decision === 'allow',
    ),
  );
  const out = eligible.filter((_, i) => allowed[i]);
  if (out.length === 0 && eligible.length > 0)
    throw errors.forbidden(
      `you may not read ${eligible.length === 1 ? `registry "${eligible[0]!.info.name}", the member` : 'any member'} of group "${group.info.name}" that serves this`,
    );
  return out;
}

/** Runs the route for one member: its own blocks first, then its handler, with the group's base URL. */
async function answer(
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

/** The request's audit row and log line name the member whose answer is served, and the group. */
function servedBy(ctx: Koa.Context, audit: AuditContext, a: Answer, group: BoundRegistry): void {
  Object.assign(audit, a.audit, { registry: a.member.info.name, via_group: group.info.name });
  const w = where(ctx);
  if (w) w.member = a.member.info.name;
}

async function readBody(reply: Reply, cap: number, member: string): Promise<Buffer> {
  const tooLarge = () =>
    new HubError('upstream_error', `registry "${member}"'s listing exceeds ${cap} bytes ([limits] max_metadata_bytes)`);
  const b = reply.body;
  if (b === null) return Buffer.alloc(0);
  if (typeof b === 'string' || Buffer.isBuffer(b)) {
    const buf = Buffer.isBuffer(b) ? b : Buffer.from(b);
    if (buf.length > cap) throw tooLarge();
    return buf;
  }
  return readCapped(b, cap, tooLarge);
}

function dispose(reply: Reply): void {
  if (reply.body instanceof Readable) reply.body.destroy();
}

function notFoundMessage(group: BoundRegistry, r: GroupRequest, members: readonly BoundRegistry[]): string {
  const what = r.match.coordinate
    ? `${r.match.coordinate.name}${r.match.coordinate.version === undefined ? '' : ` ${r.match.coordinate.version}`}`
    : 'this path';
  if (members.length === 0)
    return `${what}: no member of group "${group.info.name}" may serve it (its member_rules admit none)`;
  return `${what} is in no member of group "${group.info.name}" (asked: ${members.map((m) => m.info.name).join(', ')})`;
}
