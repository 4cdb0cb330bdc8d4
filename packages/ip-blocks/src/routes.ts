import { createAddressMatcher, errors } from '@hub/runtime';
import { adminRoute, type AdminRoute, iso } from '@hub/admin-kit';
import { canonicalIpBlock, type IpBlockList, type IpBlockRow } from './ip-block-list.js';
import { IpBlockAnswer, IpBlockBody, IpBlockListAnswer } from './schemas.js';

const ipBlockJson = (r: IpBlockRow) => ({
  ip: r.cidr,
  reason: r.reason,
  created_by: r.created_by,
  created_at: iso(r.created_at),
});

/** Client IP blocks: addresses and CIDR ranges, IPv4 and IPv6, stored in canonical form. */
export function ipBlockRoutes(blocks: IpBlockList): AdminRoute[] {
  return [
    adminRoute({
      method: 'GET',
      path: '/api/v1/admin/ip-blocks',
      permission: 'system:read',
      action: 'ip_block_list',
      summary: 'List blocked client addresses',
      response: IpBlockListAnswer,
      async handle({ ctx }) {
        ctx.body = { ip_blocks: (await blocks.list()).map(ipBlockJson) };
      },
    }),
    adminRoute({
      method: 'POST',
      path: '/api/v1/admin/ip-blocks',
      permission: 'system:write',
      action: 'ip_block_add',
      summary: 'Block a client address or range',
      response: IpBlockAnswer,
      status: 201,
      body: IpBlockBody,
      async handle({ ctx, body, actor, audit }) {
        audit.detail = `ip ${body.ip}`;
        const cidr = canonicalIpBlock(body.ip);
        audit.detail = `ip ${cidr}${body.reason ? `: ${body.reason}` : ''}`;
        // Refuse to lock out the caller: only database surgery would undo it.
        const own = ctx.state.clientIp as string;
        if (own && createAddressMatcher([cidr])(own))
          throw errors.badRequest(`${cidr} covers your own address ${own}; add this block from another address`);
        const row = await blocks.add(cidr, body.reason ?? null, actor);
        if (row === 'exists') throw errors.conflict(`${cidr} is already blocked`);
        ctx.status = 201;
        ctx.body = ipBlockJson(row);
      },
    }),
    adminRoute({
      method: 'DELETE',
      path: '/api/v1/admin/ip-blocks/:ip',
      permission: 'system:write',
      action: 'ip_block_remove',
      summary: 'Unblock a client address or range',
      response: IpBlockAnswer,
      async handle({ ctx, params, audit }) {
        audit.detail = `ip ${params.ip!.slice(0, 64)}`;
        const cidr = canonicalIpBlock(params.ip!);
        audit.detail = `ip ${cidr}`;
        const row = await blocks.remove(cidr);
        if (!row) throw errors.notFound(`${cidr} is not blocked`);
        ctx.body = ipBlockJson(row);
      },
    }),
  ];
}
