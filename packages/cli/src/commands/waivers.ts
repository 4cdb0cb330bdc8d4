/** waivers request|approve|reject|revoke|list: /api/v1/admin/waivers (decision 0067). */
import { adminCommand, commandGroup, connectionHelp } from '../command.js';
import { UsageError } from '../usage.js';
import { required, str } from '../options.js';
import { listCommand } from '../list-command.js';
import { cell, printJson, type Row } from '../output.js';

const DAY_MS = 86_400_000;

/** `7d`, `12h`, `90m` from now, or an RFC 3339 time as given. */
function expiry(text: string, command: string): string {
  const m = /^([0-9]{1,4})([dhm])$/.exec(text);
  if (!m) return text;
  const unit = m[2] === 'd' ? DAY_MS : m[2] === 'h' ? 3_600_000 : 60_000;
  const ms = Number(m[1]) * unit;
  if (ms <= 0) throw new UsageError(`--expires ${text}: must lie in the future`, command);
  return new Date(Date.now() + ms).toISOString();
}

/** `user:<id>`, `token:<id>` or `registry`. */
function scopeOf(text: string, command: string): { type: string; id?: string } {
  if (text === 'registry') return { type: 'registry' };
  const m = /^(user|token):(.+)$/.exec(text);
  if (!m) throw new UsageError(`--for ${text}: expected user:<id>, token:<id> or registry`, command);
  return { type: m[1]!, id: m[2]! };
}

const line = (w: Row) =>
  `waiver ${cell(w.id)} ${cell(w.state)}: ${cell(w.target)} on ${cell(w.registry)}/${cell(w.package_name)}${w.version ? `@${cell(w.version)}` : ''} until ${cell(w.expires_at)}\n`;

const request = adminCommand({
  name: 'waivers request',
  routes: ['POST /api/v1/admin/waivers'],
  help: `Usage: hub waivers request <block:ID|flag:SOURCE:ID> --registry NAME --package NAME [--version V]
         --for user:ID|token:ID|registry --reason TEXT --expires 7d|TIME

Asks for a waiver: the block or flag named is lifted for one package (or one version) and one
user, token or the whole registry, until --expires. It does nothing until another person with
system:write approves it (hub waivers approve); it then ends by itself.

Arguments:
  block:ID             a block, by the id hub blocks shows
  flag:SOURCE:ID       a flag, by its source and external id (as hub flags shows them)

Options:
  --registry NAME      the registry the block or flag is in
  --package NAME       the package it refuses
  --version V          only this version (default: every version it refuses)
  --for SCOPE          user:<user id>, token:<token id>, or registry (everyone)
  --reason TEXT        why; shown to the approver and kept in the audit log
  --expires WHEN       7d, 12h, 90m from now, or an RFC 3339 time; at most [waivers] max_days ahead

Needs permission system:write.

Example:
  hub waivers request block:12 --registry npm --package left-pad --for user:bob \\
    --reason "hotfix build" --expires 2d

${connectionHelp('system:write')}`,
  options: {
    registry: { type: 'string' },
    package: { type: 'string' },
    version: { type: 'string' },
    for: { type: 'string' },
    reason: { type: 'string' },
    expires: { type: 'string' },
  },
  positionals: { min: 1, max: 1 },
  async run({ io, values, positionals, json, api, command }) {
    const version = str(values, 'version', command);
    const body = {
      target: positionals[0]!,
      registry: required(values, 'registry', command),
      package_name: required(values, 'package', command),
      ...(version !== undefined && { version }),
      scope: scopeOf(required(values, 'for', command), command),
      reason: required(values, 'reason', command),
      expires_at: expiry(required(values, 'expires', command), command),
    };
    const answer = await api.call<Row>('POST', '/api/v1/admin/waivers', { body });
    if (json) printJson(io, answer);
    else io.out(line(answer));
    return 0;
  },
});

const step = (verb: 'approve' | 'reject' | 'revoke', what: string) =>
  adminCommand({
    name: `waivers ${verb}`,
    routes: [verb === 'revoke' ? 'DELETE /api/v1/admin/waivers/:id' : `POST /api/v1/admin/waivers/:id/${verb}`],
    help: `Usage: hub waivers ${verb} <id>

${what}

Needs permission system:write.

Example:
  hub waivers ${verb} 7

${connectionHelp('system:write')}`,
    positionals: { min: 1, max: 1 },
    async run({ io, positionals, json, api, command }) {
      const id = positionals[0]!;
      if (!/^[0-9]{1,15}$/.test(id)) throw new UsageError(`"${id.slice(0, 20)}" is not a waiver id`, command);
      const answer = await api.call<Row>(
        verb === 'revoke' ? 'DELETE' : 'POST',
        `/api/v1/admin/waivers/${id}${verb === 'revoke' ? '' : `/${verb}`}`,
      );
      if (json) printJson(io, answer);
      else io.out(line(answer));
      return 0;
    },
  });

const listCmd = listCommand({
  name: 'waivers list',
  route: 'GET /api/v1/admin/waivers',
  help: `Usage: hub waivers list [--target block:ID|flag:SOURCE:ID] [--registry NAME] [--package NAME]

Lists waivers, newest first, with their state: pending, active, expired, rejected or revoked.

Needs permission system:read.

Example:
  hub waivers list --target flag:scanner:MAL-1

${connectionHelp('system:read')}`,
  options: { target: { type: 'string' }, registry: { type: 'string' }, package: { type: 'string' } },
  query: ({ values, command }) => ({
    target: str(values, 'target', command),
    registry: str(values, 'registry', command),
    package_name: str(values, 'package', command),
  }),
  rows: 'waivers',
  row: (w) => ({
    ...w,
    for: `${cell((w.scope as Row).type)}${(w.scope as Row).id ? `:${cell((w.scope as Row).id)}` : ''}`,
  }),
  columns: [
    { header: 'ID', keys: ['id'] },
    { header: 'STATE', keys: ['state'] },
    { header: 'TARGET', keys: ['target'] },
    { header: 'REGISTRY', keys: ['registry'] },
    { header: 'PACKAGE', keys: ['package_name'] },
    { header: 'VERSION', keys: ['version'] },
    { header: 'FOR', keys: ['for'] },
    { header: 'REQUESTED_BY', keys: ['requested_by'] },
    { header: 'DECIDED_BY', keys: ['decided_by'] },
    { header: 'EXPIRES', keys: ['expires_at'] },
    { header: 'REASON', keys: ['reason'] },
  ],
  empty: 'no waivers',
});

export const waivers = commandGroup(
  'waivers',
  `Usage: hub waivers <request|approve|reject|revoke|list> [options]

Time-boxed waivers: one block or flag lifted for one package (or version) and one user, token or
registry, approved by a second person, ending by itself.

Sub-commands:
  request <target>   ask for a waiver (system:write)
  approve <id>       approve another person's request (system:write)
  reject <id>        reject another person's request (system:write)
  revoke <id>        end a pending or active waiver now (system:write)
  list               list waivers and their state (system:read)

Run 'hub waivers <sub-command> --help' for its options.`,
  {
    request,
    approve: step(
      'approve',
      'Approves a pending waiver: it takes effect on every replica within a second. Nobody approves\ntheir own request, whatever token they use.',
    ),
    reject: step('reject', 'Rejects a pending waiver. Nobody rejects their own request: revoke it instead.'),
    revoke: step('revoke', 'Ends a pending or active waiver now: the block or flag refuses again.'),
    list: listCmd,
  },
);
