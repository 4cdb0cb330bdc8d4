/** block, unblock and blocks list: GET · POST /api/v1/admin/blocks, DELETE /api/v1/admin/blocks/<id>. */
import { RequestError, seg } from '../client.js';
import { adminCommand, commandGroup, connectionHelp } from '../command.js';
import { exclusive, optionOrPositional, str, type Values } from '../options.js';
import { listCommand } from '../list-command.js';
import { coordinate, printJson, rowsOf, type Row } from '../output.js';
import { UsageError } from '../usage.js';

const TARGET_OPTIONS = {
  registry: { type: 'string' },
  package: { type: 'string' },
  version: { type: 'string' },
  path: { type: 'string' },
} as const;

interface Target {
  registry: string;
  package_name: string;
  version?: string;
  path?: string;
}

/** --registry/--package (or the two positionals), and at most one of --version and --path. */
function target(values: Values, positionals: string[], command: string): Target {
  const registry = optionOrPositional(values, 'registry', positionals[0], command, { required: true })!;
  const name = optionOrPositional(values, 'package', positionals[1], command, { required: true })!;
  exclusive(values, ['version', 'path'], command);
  const version = str(values, 'version', command);
  const path = str(values, 'path', command);
  return {
    registry,
    package_name: name,
    ...(version !== undefined && { version }),
    ...(path !== undefined && { path: path.replace(/^\/+/, '') }),
  };
}

const describe = (b: Row | Target) => coordinate(b.registry, b.package_name, b.version, b.path);

export const block = adminCommand({
  name: 'block',
  routes: ['POST /api/v1/admin/blocks'],
  help: `Usage: hub block --registry R --package P [--version V | --path FILE] [--reason TEXT]
       hub block <registry> <package> [--version V | --path FILE] [--reason TEXT]

Blocks a package (every version), one version, or one file of a path-addressed registry, on
every replica: clients get 403 package_blocked, with a message naming who blocked it. The block
carries your identity as blocked_by.

Options:
  --registry R       the registry name from hub.toml (required)
  --package P        the canonical package name: npm @scope/name, maven group:artifact, nuget
                     the lower-cased id, go the module path, path kinds the repo (required)
  --version V        block only this version
  --path FILE        path kinds: block only this file (the upstream path, no leading slash)
  --reason TEXT      why; kept with the block and shown by hub blocks list

Needs permission system:write.

Examples:
  hub block --registry npm --package event-stream --version 3.3.6 --reason "malware"
  hub block npm left-pad

${connectionHelp('system:write')}`,
  options: { ...TARGET_OPTIONS, reason: { type: 'string' } },
  positionals: { min: 0, max: 2 },
  async run({ io, values, positionals, json, api, command }) {
    const reason = str(values, 'reason', command);
    const body = { ...target(values, positionals, command), ...(reason !== undefined && { reason }) };
    const answer = await api.call<Row>('POST', '/api/v1/admin/blocks', { body });
    const facts = [
      answer.id !== undefined ? `block ${String(answer.id)}` : '',
      answer.blocked_by ? `by ${String(answer.blocked_by)}` : '',
    ].filter(Boolean);
    if (json) printJson(io, answer);
    else io.out(`blocked ${describe({ ...body, ...answer })}${facts.length ? ` (${facts.join(', ')})` : ''}\n`);
    return 0;
  },
});

export const unblock = adminCommand({
  name: 'unblock',
  routes: ['GET /api/v1/admin/blocks', 'DELETE /api/v1/admin/blocks/:id'],
  help: `Usage: hub unblock <block-id>
       hub unblock --registry R --package P [--version V | --path FILE]

Lifts a block, by its id (see hub blocks list) or by what it blocks. Without --version or --path
the second form lifts the block on the whole package, not blocks on single versions.

Options:
  --registry R       the registry name
  --package P        the canonical package name
  --version V        the blocked version
  --path FILE        the blocked file (path kinds)

Needs permission system:write (and system:read for the second form, which looks the block up).

Examples:
  hub unblock 42
  hub unblock --registry npm --package event-stream --version 3.3.6

${connectionHelp('system:write')}`,
  options: TARGET_OPTIONS,
  positionals: { min: 0, max: 1 },
  async run({ io, values, positionals, json, api, command }) {
    const byCoordinate = ['registry', 'package', 'version', 'path'].some((k) => values[k] !== undefined);
    if (positionals.length && byCoordinate)
      throw new UsageError('give either a block id or --registry/--package, not both', command);
    if (!positionals.length && !byCoordinate)
      throw new UsageError('give a block id, or --registry and --package', command);
    let id = positionals[0];
    let what = id !== undefined ? `block ${id}` : '';
    if (id === undefined) {
      const t = target(values, [], command);
      // The hub stores canonical names (nuget and cargo fold case): an exact match first, else the
      // only one that differs in case alone.
      const want = t.version ?? t.path ?? null;
      const rows = rowsOf(
        await api.call('GET', '/api/v1/admin/blocks', { query: { registry: t.registry } }),
        'blocks',
      ).filter((r) => r.registry === t.registry && ((r.version ?? r.path ?? null) as string | null) === want);
      const folded = rows.filter((r) => String(r.package_name).toLowerCase() === t.package_name.toLowerCase());
      const found =
        rows.find((r) => r.package_name === t.package_name) ?? (folded.length === 1 ? folded[0] : undefined);
      if (!found) throw new RequestError(`no block on ${describe(t)}; see hub blocks list --registry ${t.registry}`);
      id = String(found.id);
      what = `${describe(found)} (block ${id})`;
    }
    const answer = await api.call('DELETE', `/api/v1/admin/blocks/${seg(id)}`);
    if (json) printJson(io, answer);
    else io.out(`unblocked ${what}\n`);
    return 0;
  },
});

const listCmd = listCommand({
  name: 'blocks list',
  route: 'GET /api/v1/admin/blocks',
  help: `Usage: hub blocks list [--registry R] [--blocked-by ACTOR]

Lists blocks with their id, coordinate, who made them and why.

Options:
  --registry R          only this registry's blocks
  --blocked-by ACTOR    only blocks made by ACTOR (a user id, or system:upstream-audit)

Needs permission system:read.

Example:
  hub blocks list --blocked-by system:upstream-audit

${connectionHelp('system:read')}`,
  options: { registry: { type: 'string' }, 'blocked-by': { type: 'string' } },
  query: ({ values, command }) => ({
    registry: str(values, 'registry', command),
    blocked_by: str(values, 'blocked-by', command),
  }),
  rows: 'blocks',
  columns: [
    { header: 'ID', keys: ['id'] },
    { header: 'REGISTRY', keys: ['registry'] },
    { header: 'PACKAGE', keys: ['package_name'] },
    { header: 'VERSION/PATH', keys: ['version', 'path'] },
    { header: 'BLOCKED_BY', keys: ['blocked_by'] },
    { header: 'CREATED', keys: ['created_at'] },
    { header: 'REASON', keys: ['reason'] },
  ],
  empty: 'no blocks',
});

export const blocks = commandGroup(
  'blocks',
  `Usage: hub blocks list [options]

Lists package blocks. To add or lift one: hub block, hub unblock.

Sub-commands:
  list [--registry R] [--blocked-by ACTOR]   list blocks (system:read)

Run 'hub blocks list --help' for its options.`,
  { list: listCmd },
);
