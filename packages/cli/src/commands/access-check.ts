/** access-check: POST /api/v1/admin/access-check, the RBAC simulator. Exit 0 allowed, 1 denied. */
import { adminCommand, connectionHelp } from '../command.js';
import { exclusive, list, permission, PERMISSIONS, required, str } from '../options.js';
import { cell, printJson } from '../output.js';

interface Decision {
  decision?: 'allow' | 'deny';
  rule?: unknown;
  reason?: unknown;
}

export const accessCheck = adminCommand({
  name: 'access-check',
  routes: ['POST /api/v1/admin/access-check'],
  help: `Usage: hub access-check --permission P [--user U | --token-id T | --roles R,S]
                        [--registry R] [--package P]

Asks the hub whether a request would be allowed, using exactly the decision function its routes
use, and prints the decision, the rule that decided it and why. Nothing is changed.

Options:
  --permission P     ${PERMISSIONS.join(', ')} (required)
  --user U           as this user (its roles, blocks and the policies naming it)
  --token-id T       as this token (its user, its narrowed permissions, revocation, expiry)
  --roles R,S        as an anonymous subject holding these roles
                     (give at most one of --user, --token-id and --roles; none: anonymous)
  --registry R       on this registry
  --package P        on this package (canonical name)

Needs permission system:read.

Examples:
  hub access-check --user alice --permission source:read --registry npm --package lodash
  hub access-check --roles auditor --permission system:write || echo denied

${connectionHelp('system:read', `Exit status: 0 allowed; 1 denied, or the request was refused or failed; 2 bad usage.`)}`,
  options: {
    permission: { type: 'string' },
    user: { type: 'string' },
    'token-id': { type: 'string' },
    roles: { type: 'string' },
    registry: { type: 'string' },
    package: { type: 'string' },
  },
  async run({ io, values, json, api, command }) {
    exclusive(values, ['user', 'token-id', 'roles'], command);
    const body = {
      user_id: str(values, 'user', command),
      token_id: str(values, 'token-id', command),
      roles: list(str(values, 'roles', command), 'roles', command),
      permission: permission(required(values, 'permission', command), 'permission', command),
      registry: str(values, 'registry', command),
      package: str(values, 'package', command),
    };
    const answer = await api.call<Decision>('POST', '/api/v1/admin/access-check', { body });
    const allowed = answer.decision === 'allow';
    if (json) printJson(io, answer);
    else {
      io.out(`${allowed ? 'allow' : 'deny'}: ${cell(answer.reason)}\n`);
      if (answer.rule !== undefined && answer.rule !== null) io.out(`rule: ${cell(answer.rule)}\n`);
    }
    return allowed ? 0 : 1;
  },
});
