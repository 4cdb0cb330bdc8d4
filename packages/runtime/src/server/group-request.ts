import type { KindRoute, RouteMatch } from '@hub/contract';
import type { AuditContext } from '../audit/access-event.js';
import type { Subject } from '../policy/decide.js';
import type { BoundRegistry, RegistryRoutesDeps } from './registry-deps.js';

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

/** Why no member served the request: none may (member rules), or none has it. */
export function notFoundMessage(group: BoundRegistry, r: GroupRequest, members: readonly BoundRegistry[]): string {
  const what = r.match.coordinate
    ? `${r.match.coordinate.name}${r.match.coordinate.version === undefined ? '' : ` ${r.match.coordinate.version}`}`
    : 'this path';
  if (members.length === 0)
    return `${what}: no member of group "${group.info.name}" may serve it (its member_rules admit none)`;
  return `${what} is in no member of group "${group.info.name}" (asked: ${members.map((m) => m.info.name).join(', ')})`;
}
