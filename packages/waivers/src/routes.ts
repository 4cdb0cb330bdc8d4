import { errors } from '@hub/runtime';
import {
  adminRoute,
  iso,
  parseTime,
  queryParameters,
  queryValue,
  type AdminCall,
  type AdminRoute,
} from '@hub/admin-kit';
import { WaiverAnswer, WaiverBody, WaiverList } from './schemas.js';
import { waiverState, type WaiverRow, type WaiverStore } from './waiver-store.js';

const DAY_MS = 86_400_000;

export const waiverJson = (w: WaiverRow, now = Date.now()) => ({
  id: w.id,
  target: w.target,
  registry: w.registry,
  package_name: w.package_name,
  version: w.version,
  scope: { type: w.scope_type, id: w.scope_id },
  reason: w.reason,
  state: waiverState(w, now),
  requested_by: w.requested_by,
  decided_by: w.decided_by,
  revoked_by: w.revoked_by,
  created_at: iso(w.created_at)!,
  decided_at: iso(w.decided_at),
  revoked_at: iso(w.revoked_at),
  expires_at: iso(w.expires_at)!,
});

/** The audit row of each step names the waiver, what it lifts and for whom. */
const describe = (call: Pick<AdminCall, 'audit'>, w: WaiverRow, step: string) =>
  Object.assign(call.audit, {
    registry: w.registry,
    package: w.package_name,
    version: w.version ?? undefined,
    detail: `waiver ${w.id} ${step}: ${w.target} for ${w.scope_type}${w.scope_id ? ` ${w.scope_id}` : ''}`,
  });

/** The waiver of `:id`, 404 when there is none; 403 unless the caller may act on its registry and package. */
async function waiverOf(call: AdminCall, store: WaiverStore): Promise<WaiverRow> {
  const id = Number(call.params.id);
  const w = Number.isSafeInteger(id) && id > 0 ? await store.get(id) : null;
  if (!w) throw errors.notFound(`no waiver with id ${String(call.params.id).slice(0, 20)}`);
  call.authorize({ registry: w.registry, package: w.package_name });
  return w;
}

/** What a target refuses must be the waiver's package: a block by its id, a flag through the flags plugin's table (read only). */
async function checkTarget(call: AdminCall, body: { target: string; registry: string }, name: string): Promise<void> {
  if (body.target.startsWith('block:')) {
    const block = await call.hub.services.blocks.get(Number(body.target.slice('block:'.length)));
    if (!block) throw errors.notFound(`no block with id ${body.target.slice('block:'.length)}`);
    if (block.registry !== body.registry || block.package_name !== name)
      throw errors.badRequest(
        `${body.target} blocks ${block.package_name} in ${block.registry}, not ${name} in ${body.registry}`,
      );
    return;
  }
  const [, source, ...rest] = body.target.split(':');
  const externalId = rest.join(':');
  if (!(await call.hub.db.schema.hasTable('flags'))) throw errors.badRequest('flag waivers need the flags plugin');
  const flag = (await call.hub
    .db('flags')
    .where({ source, external_id: externalId })
    .first('registry', 'package_name')) as { registry: string; package_name: string } | undefined;
  if (!flag) throw errors.notFound(`no flag ${externalId} from flag source ${source}`);
  if (flag.registry !== body.registry || flag.package_name !== name)
    throw errors.badRequest(
      `${body.target} flags ${flag.package_name} in ${flag.registry}, not ${name} in ${body.registry}`,
    );
}

/**
 * Waivers (decision 0067): request -> pending; approve or reject by a second person with system:write (never
 * the requester, whatever token they use); DELETE revokes. Each call is an audit row.
 */
export function waiverRoutes(store: WaiverStore, maxDays: number): AdminRoute[] {
  const decide = (to: 'active' | 'rejected', verb: 'approve' | 'reject') =>
    adminRoute({
      method: 'POST',
      path: `/api/v1/admin/waivers/:id/${verb}`,
      permission: 'system:write',
      action: `waiver_${verb}`,
      summary: `${verb === 'approve' ? 'Approve' : 'Reject'} a pending waiver (never its requester's own)`,
      response: WaiverAnswer,
      async handle(call) {
        const w = await waiverOf(call, store);
        describe(call, w, verb);
        // Server-side four-eyes rule: another user, not another token of the same user.
        if (call.subject.user_id === w.requested_by || call.actor === w.requested_by)
          throw errors.forbidden(`waiver ${w.id} was requested by ${w.requested_by}: another person must ${verb} it`);
        if (waiverState(w, Date.now()) !== 'pending')
          throw errors.conflict(`waiver ${w.id} is ${waiverState(w, Date.now())}, not pending`);
        const moved = await store.decide(w.id, to, call.actor, call.subject.token_id);
        if (!moved) throw errors.conflict(`waiver ${w.id} is no longer pending`);
        call.ctx.body = waiverJson(moved);
      },
    });
  return [
    adminRoute({
      method: 'GET',
      path: '/api/v1/admin/waivers',
      permission: 'system:read',
      action: 'waiver_list',
      query: queryParameters({
        target: 'what the waiver lifts (block:<id> or flag:<source>:<external_id>)',
        registry: 'a registry name',
        package_name: 'a canonical package name',
      }),
      summary: 'List waivers, newest first, with their state (pending, active, expired, rejected, revoked)',
      response: WaiverList,
      async handle({ ctx, may }) {
        const rows = await store.list({
          target: queryValue(ctx, 'target'),
          registry: queryValue(ctx, 'registry'),
          package_name: queryValue(ctx, 'package_name'),
        });
        const now = Date.now();
        ctx.body = {
          waivers: rows
            .filter((w) => may({ registry: w.registry, package: w.package_name }))
            .map((w) => waiverJson(w, now)),
        };
      },
    }),
    adminRoute({
      method: 'POST',
      path: '/api/v1/admin/waivers',
      permission: 'system:write',
      action: 'waiver_request',
      summary:
        'Request a waiver: one block or flag lifted for one package (or version) and one registry, user or token, until expires_at',
      response: WaiverAnswer,
      status: 201,
      body: WaiverBody,
      async handle(call) {
        const { ctx, body, audit, actor, subject } = call;
        const reg = call.registry(body.registry);
        const c = call.coordinate(reg, body.package_name, body.version);
        Object.assign(audit, {
          registry: reg.name,
          package: c.name,
          version: c.version,
          detail: `waiver request: ${body.target}`,
        });
        const expiresAt = parseTime('expires_at', body.expires_at);
        const now = Date.now();
        if (expiresAt <= now) throw errors.badRequest('expires_at must lie in the future');
        if (expiresAt - now > maxDays * DAY_MS)
          throw errors.badRequest(`expires_at may lie at most ${maxDays} days ahead ([waivers] max_days)`);
        const scopeId = body.scope.type === 'registry' ? null : body.scope.id;
        if (body.scope.type !== 'registry' && scopeId === undefined)
          throw errors.badRequest(`a ${body.scope.type} scope names its id`);
        if (body.scope.type === 'registry' && body.scope.id !== undefined)
          throw errors.badRequest('a registry scope names no id: the waiver applies to the registry named');
        await checkTarget(call, body, c.name);
        const w = await store.request({
          target: body.target,
          registry: reg.name,
          package_name: c.name,
          version: c.version ?? null,
          scope_type: body.scope.type,
          scope_id: scopeId ?? null,
          reason: body.reason,
          requested_by: actor,
          requested_token: subject.token_id,
          expires_at: expiresAt,
        });
        describe(call, w, 'requested');
        audit.detail += `, until ${iso(expiresAt)}: ${body.reason}`;
        ctx.status = 201;
        ctx.body = waiverJson(w);
      },
    }),
    decide('active', 'approve'),
    decide('rejected', 'reject'),
    adminRoute({
      method: 'DELETE',
      path: '/api/v1/admin/waivers/:id',
      permission: 'system:write',
      action: 'waiver_revoke',
      summary: 'Revoke a pending or active waiver',
      response: WaiverAnswer,
      async handle(call) {
        const w = await waiverOf(call, store);
        describe(call, w, 'revoked');
        const state = waiverState(w, Date.now());
        if (state !== 'pending' && state !== 'active')
          throw errors.conflict(`waiver ${w.id} is ${state}: nothing to revoke`);
        const moved = await store.revoke(w.id, call.actor);
        if (!moved) throw errors.conflict(`waiver ${w.id} was decided meanwhile`);
        call.ctx.body = waiverJson(moved);
      },
    }),
  ];
}
