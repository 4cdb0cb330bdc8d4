import type Koa from 'koa';
import { errors, type GroupAsk, type KindRoute, type RouteMatch } from '@hub/contract';
import { answer } from './group-answer.js';
import { askable } from './group-askable.js';
import { memberView, okParts } from './group-listing-parts.js';
import type { GroupRequest } from './group-request.js';
import type { BoundRegistry, RegistryRoutesDeps } from './registry-deps.js';
import { refuseBlocked, whoOf } from './registry-refusals.js';

/** How many other requests one merge may ask of the members (rubygems' `/versions` asks up to 256 `/info` files). */
const MAX_ASKS_PER_MERGE = 512;

/**
 * `GroupAsk` (decision 0053): the members' 200 answers to another listing request of the group's kind, under the
 * same rules as the request (member rules, the closed-by-default rule, the subject's permission, blocks on the
 * group and on each member). Only routes the kind merges may be asked: a merge never pulls artifacts.
 */
export function groupAsk(ctx: Koa.Context, d: RegistryRoutesDeps, group: BoundRegistry, r: GroupRequest): GroupAsk {
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
