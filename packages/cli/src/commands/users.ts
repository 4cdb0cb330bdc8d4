/** users create|block|unblock: POST /api/v1/admin/users, POST /api/v1/admin/users/<id>/block|unblock. */
import { BUILT_IN_ROLES } from '@hub/runtime';
import { seg } from '../client.js';
import { adminCommand, commandGroup, connectionHelp } from '../command.js';
import { listCommand } from '../list-command.js';
import { list, str } from '../options.js';
import { printable, printJson, rowsOf, table, type Row } from '../output.js';
import { UsageError } from '../usage.js';

/** "alice: roles reader,publisher; blocked" */
function describe(user: Row, fallbackId: string): string {
  const roles = Array.isArray(user.roles)
    ? (user.roles as unknown[]).join(',')
    : typeof user.roles === 'string'
      ? user.roles
      : undefined;
  const blocked = user.blocked === undefined ? '' : user.blocked ? '; blocked' : '; active';
  return printable(
    `${String(user.id ?? fallbackId)}${roles !== undefined ? `: roles ${roles || '(none)'}` : ''}${blocked}`,
  );
}

function userId(positional: string, command: string): string {
  if (!positional.trim()) throw new UsageError('the user id is empty', command);
  return positional;
}

const create = adminCommand({
  name: 'users create',
  routes: ['POST /api/v1/admin/users'],
  help: `Usage: hub users create <user-id> [--roles R,S]

Creates a user. Give it a token with hub token create.

Arguments:
  <user-id>          the user's id, e.g. alice or ci-deploy

Options:
  --roles R,S        its roles (built in: ${BUILT_IN_ROLES.join(', ')}, and any
                     role your policies name); default: the server's (reader)

Needs permission system:write.

Example:
  hub users create ci-deploy --roles reader,publisher

${connectionHelp('system:write')}`,
  options: { roles: { type: 'string' } },
  positionals: { min: 1, max: 1 },
  async run({ io, values, positionals, json, api, command }) {
    const id = userId(positionals[0]!, command);
    const roles = list(str(values, 'roles', command), 'roles', command);
    const answer = await api.call<Row>('POST', '/api/v1/admin/users', { body: { id, ...(roles && { roles }) } });
    if (json) printJson(io, answer);
    else io.out(`created user ${describe(answer, id)}\n`);
    return 0;
  },
});

function blockCommand(op: 'block' | 'unblock') {
  return adminCommand({
    name: `users ${op}`,
    routes: [`POST /api/v1/admin/users/:id/${op}`],
    help:
      op === 'block'
        ? `Usage: hub users block <user-id>

Blocks a user: every request with any of its tokens is refused (403 user_blocked) at once, on
every replica, until hub users unblock.

Needs permission system:write.

Example:
  hub users block alice

${connectionHelp('system:write')}`
        : `Usage: hub users unblock <user-id>

Unblocks a user: its tokens that are neither revoked nor expired work again.

Needs permission system:write.

Example:
  hub users unblock alice

${connectionHelp('system:write')}`,
    positionals: { min: 1, max: 1 },
    async run({ io, positionals, json, api, command }) {
      const id = userId(positionals[0]!, command);
      const answer = await api.call<Row>('POST', `/api/v1/admin/users/${seg(id)}/${op}`);
      if (json) printJson(io, answer);
      else io.out(`${op}ed user ${describe(answer, id)}\n`);
      return 0;
    },
  });
}

const listCmd = listCommand({
  name: 'users list',
  route: 'GET /api/v1/admin/users',
  help: `Usage: hub users list

Lists users with their roles and whether they are blocked.

Needs permission system:read.

Example:
  hub users list --json

${connectionHelp('system:read')}`,
  rows: 'users',
  columns: [
    { header: 'ID', keys: ['id'] },
    { header: 'ROLES', keys: ['roles'] },
    { header: 'BLOCKED', keys: ['blocked'] },
    { header: 'CREATED', keys: ['created_at'] },
  ],
  empty: 'no users',
});

const show = adminCommand({
  name: 'users show',
  routes: ['GET /api/v1/admin/users/:id'],
  help: `Usage: hub users show <user-id>

Shows a user and its tokens (ids, narrowed permissions, expiry, revocation; never the tokens
themselves), e.g. to find the id to give hub token revoke.

Needs permission system:read.

Example:
  hub users show ci-deploy

${connectionHelp('system:read')}`,
  positionals: { min: 1, max: 1 },
  async run({ io, positionals, json, api, command }) {
    const id = userId(positionals[0]!, command);
    const answer = await api.call<Row>('GET', `/api/v1/admin/users/${seg(id)}`);
    if (json) return (printJson(io, answer), 0);
    io.out(`user ${describe(answer, id)}\n`);
    const tokens = rowsOf(answer, 'tokens');
    if (!tokens.length) io.out('no tokens\n');
    else
      table(
        io,
        [
          { header: 'TOKEN_ID', keys: ['id'] },
          { header: 'PERMISSIONS', keys: ['permissions'] },
          { header: 'EXPIRES', keys: ['expires_at'] },
          { header: 'REVOKED', keys: ['revoked_at'] },
          { header: 'CREATED', keys: ['created_at'] },
        ],
        tokens.map((t) => ({ ...t, permissions: t.permissions ?? "(the user's)" })),
      );
    return 0;
  },
});

export const users = commandGroup(
  'users',
  `Usage: hub users <create|block|unblock|show|list> [<user-id>] [options]

Manages users. A blocked user's every token is refused until it is unblocked.

Sub-commands:
  create <user-id> [--roles R,S]   create a user (system:write)
  block <user-id>                  block a user (system:write)
  unblock <user-id>                unblock a user (system:write)
  show <user-id>                   a user and its token ids (system:read)
  list                             every user (system:read)

Run 'hub users <sub-command> --help' for its options.`,
  { create, block: blockCommand('block'), unblock: blockCommand('unblock'), show, list: listCmd },
);
