import { apiPolicyId, configPolicyId, errors, parsePolicyRow, type PolicyRule, adminRoute, type AdminRoute, iso } from '@hub/runtime';
import { assertMayGrant, policyGrant } from '../grants.js';
import { PolicyBody } from '../schemas.js';

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
    async handle({ ctx, hub }) {
      const fromConfig = (hub.config.auth.policies ?? []).map((p, i) => ({ rule: configPolicyId(p, i), source: 'config', ...p }));
      const fromApi = ((await hub.db('policies').orderBy('id').select()) as Record<string, unknown>[]).map((raw) => {
        const r = parsePolicyRow(raw);
        return { rule: apiPolicyId(r), source: 'api', id: r.id, ...(r.name ? { name: r.name } : {}), effect: r.effect, ...r.rule, created_by: r.created_by, created_at: iso(r.created_at) };
      });
      ctx.body = { policies: [...fromConfig, ...fromApi] };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/policies',
    permission: 'system:write',
    action: 'policy_create',
    body: PolicyBody,
    async handle({ ctx, hub, subject, body, actor, audit }) {
      audit.detail = `${body.effect} ${body.permissions.join(',')}`;
      if (body.effect === 'allow') await assertMayGrant(hub, subject, policyGrant(body), 'this policy');
      const rule: PolicyRule = { permissions: body.permissions };
      for (const k of RULE_KEYS) if (k !== 'permissions' && body[k]) rule[k] = body[k];
      const row = { name: body.name ?? null, effect: body.effect, rule: JSON.stringify(rule), created_by: actor, created_at: Date.now() };
      const [id] = (await hub.db('policies').insert(row)) as number[];
      hub.access.policies.invalidate();
      const created = { id: Number(id), name: row.name, effect: row.effect, rule, created_by: actor, created_at: row.created_at };
      audit.detail = `${apiPolicyId(created)}: ${body.effect} ${body.permissions.join(',')}`;
      ctx.status = 201;
      ctx.body = { rule: apiPolicyId(created), source: 'api', id: created.id, ...(row.name ? { name: row.name } : {}), effect: row.effect, ...rule, created_by: actor, created_at: iso(row.created_at) };
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/api/v1/admin/policies/:id',
    permission: 'system:write',
    action: 'policy_delete',
    async handle({ ctx, hub, params, audit }) {
      const id = /^[1-9]\d{0,15}$/.test(params.id!) ? Number(params.id) : NaN;
      const raw = Number.isSafeInteger(id) ? ((await hub.db('policies').where({ id }).first()) as Record<string, unknown> | undefined) : undefined;
      if (!raw) throw errors.notFound(`no API policy ${String(params.id).slice(0, 32)} (config policies change in hub.toml)`);
      const r = parsePolicyRow(raw);
      audit.detail = apiPolicyId(r);
      await hub.db('policies').where({ id }).delete();
      hub.access.policies.invalidate();
      ctx.body = { rule: apiPolicyId(r), source: 'api', id: r.id, ...(r.name ? { name: r.name } : {}), effect: r.effect, ...r.rule, created_by: r.created_by, created_at: iso(r.created_at) };
    },
  }),
];
