/** ip-blocks add|remove|list: GET · POST /api/v1/admin/ip-blocks, DELETE /api/v1/admin/ip-blocks/<ip-or-cidr>. */
import { seg } from '../client.js';
import { adminCommand, commandGroup, connectionHelp } from '../command.js';
import { ipOrCidr, str } from '../options.js';
import { listCommand } from '../list-command.js';
import { cell, printJson, type Row } from '../output.js';

const add = adminCommand({
  name: 'ip-blocks add',
  routes: ['POST /api/v1/admin/ip-blocks'],
  help: `Usage: hub ip-blocks add <ip-or-cidr> [--reason TEXT]

Refuses every request from an address or range (403 ip_blocked), on every replica, until removed.
With [server] trust_proxy the client address is taken from X-Forwarded-For.

Arguments:
  <ip-or-cidr>       an IPv4 or IPv6 address, or a CIDR range (198.51.100.0/24, 2001:db8::/32)

Options:
  --reason TEXT      why; kept with the block and shown by hub ip-blocks list

The hub refuses a block that covers the address you are calling from.

Needs permission system:write.

Example:
  hub ip-blocks add 203.0.113.0/24 --reason "credential stuffing"

${connectionHelp('system:write')}`,
  options: { reason: { type: 'string' } },
  positionals: { min: 1, max: 1 },
  async run({ io, values, positionals, json, api, command }) {
    const ip = ipOrCidr(positionals[0]!, command);
    const reason = str(values, 'reason', command);
    const answer = await api.call<Row>('POST', '/api/v1/admin/ip-blocks', {
      body: { ip, ...(reason !== undefined && { reason }) },
    });
    if (json) printJson(io, answer);
    else io.out(`blocked ${cell(answer.ip ?? ip)}\n`);
    return 0;
  },
});

const remove = adminCommand({
  name: 'ip-blocks remove',
  routes: ['DELETE /api/v1/admin/ip-blocks/:ip'],
  help: `Usage: hub ip-blocks remove <ip-or-cidr>

Lifts the block on an address or range (as hub ip-blocks list shows it; the hub stores ranges
in canonical form, so 203.0.113.9/24 is 203.0.113.0/24).

Needs permission system:write.

Example:
  hub ip-blocks remove 203.0.113.0/24

${connectionHelp('system:write')}`,
  positionals: { min: 1, max: 1 },
  async run({ io, positionals, json, api, command }) {
    const ip = ipOrCidr(positionals[0]!, command);
    const answer = await api.call<Row>('DELETE', `/api/v1/admin/ip-blocks/${seg(ip)}`);
    if (json) printJson(io, answer);
    else io.out(`unblocked ${cell(answer.ip ?? ip)}\n`);
    return 0;
  },
});

const listCmd = listCommand({
  name: 'ip-blocks list',
  route: 'GET /api/v1/admin/ip-blocks',
  help: `Usage: hub ip-blocks list

Lists the blocked addresses and ranges.

Needs permission system:read.

Example:
  hub ip-blocks list --json

${connectionHelp('system:read')}`,
  rows: 'ip_blocks',
  columns: [
    { header: 'IP', keys: ['ip'] },
    { header: 'BLOCKED_BY', keys: ['created_by'] },
    { header: 'CREATED', keys: ['created_at'] },
    { header: 'REASON', keys: ['reason'] },
  ],
  empty: 'no IP blocks',
});

export const ipBlocks = commandGroup(
  'ip-blocks',
  `Usage: hub ip-blocks <add|remove|list> [options]

Blocks client addresses and ranges (IPv4, IPv6, CIDR). Blocked clients get 403 ip_blocked.

Sub-commands:
  add <ip-or-cidr>      block an address or range (system:write)
  remove <ip-or-cidr>   lift a block (system:write)
  list                  list the blocks (system:read)

Run 'hub ip-blocks <sub-command> --help' for its options.`,
  { add, remove, list: listCmd },
);
