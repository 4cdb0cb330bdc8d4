/** token create|revoke: POST /api/v1/admin/tokens, DELETE /api/v1/admin/tokens/<token-id>. */
import { seg } from '../client.js';
import { adminCommand, commandGroup, connectionHelp } from '../command.js';
import { duration, list, permission, PERMISSIONS, required, str } from '../options.js';
import { printJson } from '../output.js';

const create = adminCommand({
  name: 'token create',
  routes: ['POST /api/v1/admin/tokens'],
  help: `Usage: hub token create --user USER [--permissions P,Q] [--expires-in DURATION]

Creates a token for a user and prints it on standard output, alone on its line, so that
TOKEN=$(hub token create --user ci) works. The token is shown this once: hub keeps only its
SHA-256. Its id (for revoking) goes to standard error, or to "id" with --json.

Options:
  --user USER            the user the token acts as (required; see hub users create)
  --permissions P,Q      narrow the token to these of the user's permissions
                         (${PERMISSIONS.join(', ')}); default: all of the user's
  --expires-in DURATION  expire after this long: seconds, or 15m, 12h, 30d, 2w (default: never)

Needs permission system:write.

Example:
  hub token create --user ci --permissions source:read --expires-in 30d

${connectionHelp('system:write')}`,
  options: { user: { type: 'string' }, permissions: { type: 'string' }, 'expires-in': { type: 'string' } },
  async run({ io, values, json, api, command }) {
    const user = required(values, 'user', command);
    const permissions = list(str(values, 'permissions', command), 'permissions', command)?.map((p) =>
      permission(p, 'permissions', command),
    );
    const expires = duration(str(values, 'expires-in', command), 'expires-in', command);
    const answer = await api.call<{ id?: string; token?: string; expires_at?: string | null }>(
      'POST',
      '/api/v1/admin/tokens',
      {
        body: {
          user_id: user,
          ...(permissions && { permissions }),
          ...(expires !== undefined && { expires_in_secs: expires }),
        },
      },
    );
    if (json) printJson(io, answer);
    else {
      io.out(`${answer.token ?? ''}\n`);
      io.err(
        `created token ${answer.id ?? '?'} for user ${user}${answer.expires_at ? `, expiring ${answer.expires_at}` : ''}; it is shown only this once\n`,
      );
    }
    return 0;
  },
});

const revoke = adminCommand({
  name: 'token revoke',
  routes: ['DELETE /api/v1/admin/tokens/:id'],
  help: `Usage: hub token revoke <token-id>

Revokes a token: from now on every request carrying it gets 401, on every replica.

Arguments:
  <token-id>         the id printed by hub token create (not the token itself)

Needs permission system:write.

Example:
  hub token revoke tok_3f9a2c

${connectionHelp('system:write')}`,
  positionals: { min: 1, max: 1 },
  async run({ io, positionals, json, api }) {
    const id = positionals[0]!;
    const answer = await api.call('DELETE', `/api/v1/admin/tokens/${seg(id)}`);
    if (json) printJson(io, answer);
    else io.out(`revoked token ${id}\n`);
    return 0;
  },
});

export const token = commandGroup(
  'token',
  `Usage: hub token <create|revoke> [options]

Issues and revokes bearer tokens. Tokens are stored as SHA-256 and shown once, at creation.

Sub-commands:
  create --user USER [--permissions P,Q] [--expires-in DURATION]   issue a token (system:write)
  revoke <token-id>                                                revoke one (system:write)

Run 'hub token <sub-command> --help' for its options.`,
  { create, revoke },
);
