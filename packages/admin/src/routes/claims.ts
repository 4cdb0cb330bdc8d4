import { errors, type LocalClaim } from '@hub/runtime';
import { adminRoute, iso, type AdminCall, type AdminRoute } from '@hub/admin-kit';
import { ClaimBody } from '../schemas.js';
import { ClaimAnswer, ClaimList } from '../answer-schemas.js';

/** A hybrid registry by name (404 unknown, 403 denied, 400 any other mode: only a hybrid registry has names to claim). */
function hybrid(call: AdminCall, name: string) {
  const reg = call.registry(name);
  const mode = call.hub.served.get(reg.name)!.info.mode;
  if (mode !== 'hybrid')
    throw errors.badRequest(
      `registry ${reg.name} is a ${mode} registry: names are claimed in hybrid registries, where a first publish of a name the upstream has needs a claim`,
    );
  call.audit.registry = reg.name;
  return reg;
}

const claimJson = (c: LocalClaim) => ({
  registry: c.registry,
  package: c.name,
  claimed_by: c.claimed_by,
  claimed_at: iso(c.claimed_at),
});

/**
 * Claims (issue 26, decision 0043): names an administrator lets a hybrid registry publish although its upstream
 * has them. The first publish then hides the upstream's versions of the name from every reader.
 */
export const claimRoutes: AdminRoute[] = [
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/registries/:registry/claims',
    permission: 'system:read',
    action: 'claims_list',
    summary: 'List the names claimed for a hybrid registry',
    response: ClaimList,
    async handle(call) {
      const reg = hybrid(call, call.params.registry!);
      const rows = await call.hub.services.local.claims(reg.name);
      call.ctx.body = {
        claims: rows.filter((r) => call.may({ registry: r.registry, package: r.name })).map(claimJson),
      };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/registries/:registry/claims',
    permission: 'system:write',
    action: 'package_claim',
    summary: 'Claim a name for a hybrid registry: its first publish there is taken though the upstream has it',
    response: ClaimAnswer,
    status: 201,
    body: ClaimBody,
    async handle(call) {
      const reg = hybrid(call, call.params.registry!);
      const c = call.coordinate(reg, call.body.package, undefined);
      call.audit.package = c.name;
      const claim = await call.hub.services.local.claim(reg.name, c.name, call.actor);
      if (claim === 'exists') throw errors.conflict(`${c.name} is already claimed for ${reg.name}`);
      call.ctx.status = 201;
      call.ctx.body = claimJson(claim);
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/api/v1/admin/registries/:registry/claims/:package',
    permission: 'system:write',
    action: 'package_unclaim',
    summary: 'Drop a claim (versions already published stay, and so does the name they hold)',
    response: ClaimAnswer,
    async handle(call) {
      const reg = hybrid(call, call.params.registry!);
      const c = call.coordinate(reg, call.params.package!, undefined);
      call.audit.package = c.name;
      const claim = (await call.hub.services.local.claims(reg.name)).find((r) => r.name === c.name);
      if (!claim || !(await call.hub.services.local.unclaim(reg.name, c.name)))
        throw errors.notFound(`${c.name} is not claimed for ${reg.name}`);
      call.ctx.body = claimJson(claim);
    },
  }),
];
