/**
 * Serves a request to a group registry (`mode = "group"`, decision 0051) from its members. The kind's route
 * matched once, on the group's path; here the same route runs for member registries, each with its own
 * RequestContext (its config, upstream client, cache keys, local store, unlisting, blocks, cool-down) but with
 * the group's base URL, so the URLs a member writes into its documents point at the group.
 *
 * Routes the kind names in `group.merge` are listings: every eligible member is asked at once, their 200
 * answers are read (within the metadata byte cap) and merged by the kind (group-listing.ts). Every other route
 * goes to the members in order and the first answer that is not a 404 or 410 is served: an artifact is cached
 * under the member that answered, never a second time under the group.
 *
 * The path of a request: the members it may ask (group-askable.ts), one member's answer (group-answer.ts), then
 * the first answer served here, or the listings read (group-listing-parts.ts) and merged (group-listing.ts,
 * with group-ask.ts for the further listings a merge asks for).
 */
import type Koa from 'koa';
import { errors, type HubError, type Reply } from '@hub/contract';
import { type Answer, answer, servedBy } from './group-answer.js';
import { askable } from './group-askable.js';
import { mergedListing } from './group-listing.js';
import { type GroupRequest, notFoundMessage } from './group-request.js';
import type { BoundRegistry, RegistryRoutesDeps } from './registry-deps.js';

export type { GroupRequest } from './group-request.js';

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
