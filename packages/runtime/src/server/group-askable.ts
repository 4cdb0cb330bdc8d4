import { errors } from '@hub/contract';
import { eligibleMembers } from './group-members.js';
import type { GroupRequest } from './group-request.js';
import type { BoundRegistry, RegistryRoutesDeps } from './registry-deps.js';

/** The members this request may be asked of: routing rules, the closed-by-default rule, then the subject's own permission on each. */
export async function askable(d: RegistryRoutesDeps, group: BoundRegistry, r: GroupRequest): Promise<BoundRegistry[]> {
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
