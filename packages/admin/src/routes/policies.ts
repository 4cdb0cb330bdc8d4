import { apiPolicyId, configPolicyId, errors, type PolicyRow, type PolicyRule } from '@hub/runtime';
import { adminRoute, type AdminRoute, iso } from '@hub/admin-kit';
import { assertMayGrant, policyGrant } from '../grants.js';
import { PolicyBody } from '../schemas.js';
import { ApiPolicyAnswer, PolicyList } from '../answer-schemas.js';

const policyJson = (r: PolicyRow) => ({
  rule: apiPolicyId(r),
  source: 'api',
  id: r.id,
  ...(r.name ? { name: r.name } : {}),
  effect: r.effect,
  ...r.rule,
  created_by: r.created_by,
  created_at: iso(r.created_at),
});

const notFound = (id: string) =>
  errors.notFound(`no API policy ${id.slice(0, 32)} (config policies change in hub.toml)`);

const RULE_KEYS = ['permissions', 'users', 'roles', 'tokens', 'registries', 'packages'] as const;

/**
 * Policies made through the API, next to `[[auth.policies]]` from the config (listed, not editable here).
 * decide() sees both on every replica within a second of a change.
 */
export const policyRoutes: AdminRoute[] = [
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/policies',
    permission: 'system:read',
    action: 'policy_list',
    summary: 'List policies: [[auth.policies]] from the config, then those made through the API',
    response: PolicyList,
    async handle({ ctx, hub }) {
      const fromConfig = (hub.config.auth.policies ?? []).map((p, i) => ({
        rule: configPolicyId(p, i),
        source: 'config',
        ...p,
      }));
      const fromApi = (await hub.access.policies.list()).map(policyJson);
      ctx.body = { policies: [...fromConfig, ...fromApi] };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/policies',
    permission: 'system:write',
    action: 'policy_create',
    summary: 'Add a policy',
    response: ApiPolicyAnswer,
    status: 201,
    body: PolicyBody,
    async handle({ ctx, hub, subject, body, actor, audit }) {
      audit.detail = `${body.effect} ${body.permissions.join(',')}`;
      if (body.effect === 'allow') await assertMayGrant(hub, subject, policyGrant(body), 'this policy');
      const rule: PolicyRule = { permissions: body.permissions };
      for (const k of RULE_KEYS) if (k !== 'permissions' && body[k]) rule[k] = body[k];
      const created = await hub.access.policies.add({ name: body.name ?? null, effect: body.effect, rule, by: actor });
      audit.detail = `${apiPolicyId(created)}: ${body.effect} ${body.permissions.join(',')}`;
      ctx.status = 201;
      ctx.body = policyJson(created);
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/api/v1/admin/policies/:id',
    permission: 'system:write',
    action: 'policy_delete',
    summary: 'Remove a policy made through the API',
    response: ApiPolicyAnswer,
    async handle({ ctx, hub, params, subject, audit }) {
      const id = /^[1-9]\d{0,15}$/.test(params.id!) ? Number(params.id) : NaN;
      const found = Number.isSafeInteger(id) ? await hub.access.policies.get(id) : null;
      if (!found) throw notFound(params.id!);
      audit.detail = apiPolicyId(found);
      // Removing a deny hands back what it withheld: the same rule as minting a token (decision 0037).
      if (found.effect === 'deny')
        await assertMayGrant(hub, subject, policyGrant(found.rule), `removing ${apiPolicyId(found)}`);
      const r = await hub.access.policies.remove(id);
      if (!r) throw notFound(params.id!);
      ctx.body = policyJson(r);
    },
  }),
];
