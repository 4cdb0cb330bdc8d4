import { createHash } from 'node:crypto';
import type Koa from 'koa';
import { errors, type HubError, type Reply } from '@hub/contract';
import { type Answer, answer, servedBy, where } from './group-answer.js';
import { groupAsk } from './group-ask.js';
import { memberView, okParts } from './group-listing-parts.js';
import { type GroupRequest, notFoundMessage } from './group-request.js';
import type { BoundRegistry, RegistryRoutesDeps } from './registry-deps.js';
import { requestContext } from './request-context.js';

/** Every eligible member's 200 answer, merged by the kind (one is served as it is). */
export async function mergedListing(
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
