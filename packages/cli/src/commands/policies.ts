/** policies list|create|delete: GET · POST /api/v1/admin/policies, DELETE /api/v1/admin/policies/<id>. */
import { seg } from '../client.js';
import { adminCommand, commandGroup, connectionHelp } from '../command.js';
import { list, permission, PERMISSIONS, required, str } from '../options.js';
import { listCommand } from '../list-command.js';
import { cell, printJson, type Row } from '../output.js';
import { UsageError } from '../usage.js';

const SCOPES = ['users', 'roles', 'tokens', 'registries', 'packages'] as const;

const listCmd = listCommand({
  name: 'policies list',
  route: 'GET /api/v1/admin/policies',
  help: `Usage: hub policies list

Lists the access policies in force: those of [[auth.policies]] in hub.toml (source config) and
those made through the API (source api, deletable by id). Deny wins over allow.

Needs permission system:read.

Example:
  hub policies list

${connectionHelp('system:read')}`,
  rows: 'policies',
  columns: [
    { header: 'RULE', keys: ['rule'] },
    { header: 'SOURCE', keys: ['source'] },
    { header: 'EFFECT', keys: ['effect'] },
    { header: 'PERMISSIONS', keys: ['permissions'] },
    ...SCOPES.map((k) => ({ header: k.toUpperCase(), keys: [k] })),
    { header: 'NAME', keys: ['name'] },
  ],
  empty: 'no policies',
});

const create = adminCommand({
  name: 'policies create',
  routes: ['POST /api/v1/admin/policies'],
  help: `Usage: hub policies create --effect allow|deny --permissions P,Q [--users U,V]
                            [--roles R,S] [--tokens T] [--registries R] [--packages PAT]
                            [--name NAME]

Adds a policy that allows or denies permissions to users, roles or tokens, optionally only on
some registries and packages (patterns such as "@acme/*"). Deny wins over allow; every replica
applies it within a second or two. You cannot allow what you do not hold yourself.

Options:
  --effect E         allow or deny (required)
  --permissions P,Q  ${PERMISSIONS.join(', ')} (required)
  --users U,V        user ids it applies to
  --roles R,S        roles it applies to
  --tokens T,U       token ids it applies to
  --registries R,S   registry name patterns (default: every registry)
  --packages PAT     package name patterns (default: every package)
  --name NAME        a label for hub policies list

Needs permission system:write.

Example:
  hub policies create --effect deny --permissions source:read --roles contractor --packages "@acme/*"

${connectionHelp('system:write')}`,
  options: {
    effect: { type: 'string' },
    permissions: { type: 'string' },
    name: { type: 'string' },
    ...Object.fromEntries(SCOPES.map((k) => [k, { type: 'string' as const }])),
  },
  async run({ io, values, json, api, command }) {
    const effect = required(values, 'effect', command);
    if (effect !== 'allow' && effect !== 'deny')
      throw new UsageError(`--effect must be allow or deny, not "${effect}"`, command);
    const permissions = list(required(values, 'permissions', command), 'permissions', command)!.map((p) =>
      permission(p, 'permissions', command),
    );
    const name = str(values, 'name', command);
    const body: Record<string, unknown> = { effect, permissions, ...(name !== undefined && { name }) };
    for (const k of SCOPES) {
      const v = list(str(values, k, command), k, command);
      if (v) body[k] = v;
    }
    const answer = await api.call<Row>('POST', '/api/v1/admin/policies', { body });
    if (json) printJson(io, answer);
    else io.out(`created policy ${cell(answer.rule ?? answer.id)}: ${effect} ${permissions.join(',')}\n`);
    return 0;
  },
});

const remove = adminCommand({
  name: 'policies delete',
  routes: ['DELETE /api/v1/admin/policies/:id'],
  help: `Usage: hub policies delete <id>

Deletes a policy made through the API, by its id: the number in its rule as hub policies list
shows it (policy:3 or policy:3:name is id 3; either form is accepted). Policies from hub.toml
change only there.

Needs permission system:write.

Example:
  hub policies delete 3

${connectionHelp('system:write')}`,
  positionals: { min: 1, max: 1 },
  async run({ io, positionals, json, api }) {
    const id = /^policy:(\d+)(?::|$)/.exec(positionals[0]!)?.[1] ?? positionals[0]!;
    const answer = await api.call<Row>('DELETE', `/api/v1/admin/policies/${seg(id)}`);
    if (json) printJson(io, answer);
    else io.out(`deleted policy ${cell(answer.rule ?? id)}\n`);
    return 0;
  },
});

export const policies = commandGroup(
  'policies',
  `Usage: hub policies <list|create|delete> [options]

Access policies: allow or deny permissions to users, roles or tokens, by registry and package.
Check their effect with hub access-check.

Sub-commands:
  list                                              list policies (system:read)
  create --effect allow|deny --permissions P,Q ...  add one (system:write)
  delete <id>                                       delete an API policy (system:write)

Run 'hub policies <sub-command> --help' for its options.`,
  { list: listCmd, create, delete: remove },
);
