import { canonicalIpBlock, createAddressMatcher, errors, adminRoute, type AdminRoute, iso } from '@hub/runtime';
import { IpBlockBody } from '../schemas.js';

const ipBlockJson = (r: Record<string, unknown>) => ({
  ip: String(r.cidr),
  reason: (r.reason as string | null) ?? null,
  created_by: String(r.created_by),
  created_at: iso(r.created_at as number),
});

/** Client IP blocks: addresses and CIDR ranges, IPv4 and IPv6, stored in canonical form. */
export const ipBlockRoutes: AdminRoute[] = [
  adminRoute({
    method: 'GET',
    path: '/api/v1/admin/ip-blocks',
    permission: 'system:read',
    action: 'ip_block_list',
    async handle({ ctx, hub }) {
      ctx.body = { ip_blocks: ((await hub.db('ip_blocks').orderBy('id').select()) as Record<string, unknown>[]).map(ipBlockJson) };
    },
  }),
  adminRoute({
    method: 'POST',
    path: '/api/v1/admin/ip-blocks',
    permission: 'system:write',
    action: 'ip_block_add',
    body: IpBlockBody,
    async handle({ ctx, hub, body, actor, audit }) {
      audit.detail = `ip ${body.ip}`;
      const cidr = canonicalIpBlock(body.ip);
      audit.detail = `ip ${cidr}${body.reason ? `: ${body.reason}` : ''}`;
      // Refuse to lock out the caller: only database surgery would undo it.
      const own = ctx.state.clientIp as string;
      if (own && createAddressMatcher([cidr])(own))
        throw errors.badRequest(`${cidr} covers your own address ${own}; add this block from another address`);
      const row = { cidr, reason: body.reason ?? null, created_by: actor, created_at: Date.now() };
      const inserted = await hub.db.transaction(async (trx) => {
        if (await trx('ip_blocks').where({ cidr }).first('id')) return false;
        await trx('ip_blocks').insert(row);
        return true;
      }).catch((e: { code?: string }) => {
        // Another replica inserted the same range between our check and insert (unique index).
        if (/^(ER_DUP_ENTRY|SQLITE_CONSTRAINT)/.test(e.code ?? '')) return false;
        throw e;
      });
      if (!inserted) throw errors.conflict(`${cidr} is already blocked`);
      hub.ipBlocks.invalidate();
      ctx.status = 201;
      ctx.body = ipBlockJson(row);
    },
  }),
  adminRoute({
    method: 'DELETE',
    path: '/api/v1/admin/ip-blocks/:ip',
    permission: 'system:write',
    action: 'ip_block_remove',
    async handle({ ctx, hub, params, audit }) {
      audit.detail = `ip ${params.ip!.slice(0, 64)}`;
      const cidr = canonicalIpBlock(params.ip!);
      audit.detail = `ip ${cidr}`;
      const row = (await hub.db('ip_blocks').where({ cidr }).first()) as Record<string, unknown> | undefined;
      if (!row) throw errors.notFound(`${cidr} is not blocked`);
      await hub.db('ip_blocks').where({ cidr }).delete();
      hub.ipBlocks.invalidate();
      ctx.body = ipBlockJson(row);
    },
  }),
];
