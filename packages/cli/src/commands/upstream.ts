/**
 * upstream sweep|recheck|list|status: the upstream-disappearance audit of @hub/audit
 * (POST /api/v1/admin/upstream/sweep · recheck, GET /api/v1/admin/upstream/disappeared · status/<registry>/<name>).
 */
import { seg } from '../client.js';
import { adminCommand, commandGroup, connectionHelp } from '../command.js';
import { optionOrPositional, str, type Values } from '../options.js';
import { cell, coordinate, printable, printJson, rowsOf, table, type Column, type Row } from '../output.js';
import { listCommand } from '../list-command.js';
import { UsageError } from '../usage.js';

const STATES = ['missing', 'disappeared'] as const;

/** The columns of an audit row; `withName` adds registry and package (the list shows several packages). */
function rowColumns(withName: boolean): Column[] {
  return [
    ...(withName
      ? [
          { header: 'REGISTRY', keys: ['registry'] },
          { header: 'PACKAGE', keys: ['package_name'] },
        ]
      : []),
    { header: 'VERSION', keys: ['version'] },
    { header: 'STATE', keys: ['state'] },
    { header: 'MISSES', keys: ['misses'] },
    { header: 'FIRST_MISSED', keys: ['first_missed_at'] },
    { header: 'CONFIRMED', keys: ['confirmed_at'] },
    { header: 'LAST_CHECKED', keys: ['last_checked_at'] },
    { header: 'POLICY', keys: ['policy'] },
    { header: 'RUNG', keys: ['rung'] },
    { header: 'DETAIL', keys: ['detail'] },
  ];
}

/** --registry/--package, or the two positionals. */
function packageOf(values: Values, positionals: string[], command: string): { registry: string; package_name: string } {
  return {
    registry: optionOrPositional(values, 'registry', positionals[0], command, { required: true })!,
    package_name: optionOrPositional(values, 'package', positionals[1], command, { required: true })!,
  };
}

const plural = (n: unknown, one: string, many = `${one}s`) => `${cell(n)} ${Number(n) === 1 ? one : many}`;

/** "npm: ok, 3 probed, 3 answered, 1 missing, 0 disappeared, 0 reappeared" or "deb: skipped (why)". */
function sweepLine(s: Row): string {
  const name = printable(String(s.registry));
  if (s.outcome === 'skipped') return `${name}: skipped (${cell(s.reason ?? 'no reason given')})`;
  const counts = `${cell(s.probed)} probed, ${cell(s.conclusive)} answered, ${cell(s.missing)} missing, ${cell(s.disappeared)} disappeared, ${cell(s.reappeared)} reappeared`;
  if (s.outcome === 'void')
    return `${name}: void, ${counts}: nothing recorded (the upstream looks unreachable, or too much of it is missing at once)`;
  return `${name}: ${cell(s.outcome)}, ${counts}`;
}

const sweep = adminCommand({
  name: 'upstream sweep',
  routes: ['POST /api/v1/admin/upstream/sweep'],
  help: `Usage: hub upstream sweep [--registry R]

Runs the upstream-disappearance audit now, for one registry or every one in turn, and prints one
line per registry: the outcome, how many packages were probed and answered, how many packages had a
version absent upstream in this sweep, and how many versions were confirmed disappeared or came
back. A sweep already running (the schedule's) is joined, not repeated.

Outcomes:
  ok        the answers were recorded
  void      nothing was recorded: no package answered, or more than outage_ratio of them had a
            version absent, which looks like an upstream outage (event upstream_unreachable)
  skipped   the registry is not audited (local mode, a forge kind, no probe ladder); the reason
            is shown

Options:
  --registry R       only this registry (the name from hub.toml)

Needs permission system:write.

Examples:
  hub upstream sweep
  hub upstream sweep --registry npm

${connectionHelp('system:write', 'Exit status: 0 every registry swept or skipped; 1 a sweep was void, or the request was refused,\nfailed or the hub is unreachable; 2 bad usage.')}`,
  options: { registry: { type: 'string' } },
  async run({ io, values, json, api, command }) {
    const registry = str(values, 'registry', command);
    const answer = await api.call<Row>('POST', '/api/v1/admin/upstream/sweep', {
      body: registry !== undefined ? { registry } : {},
    });
    const sweeps = rowsOf(answer, 'sweeps');
    if (json) printJson(io, answer);
    else if (!sweeps.length) io.err('no registries to sweep\n');
    else for (const s of sweeps) io.out(`${sweepLine(s)}\n`);
    return sweeps.some((s) => s.outcome === 'void') ? 1 : 0;
  },
});

const recheck = adminCommand({
  name: 'upstream recheck',
  routes: ['POST /api/v1/admin/upstream/recheck'],
  help: `Usage: hub upstream recheck --registry R --package P [--version V]
       hub upstream recheck <registry> <package> [--version V]

Probes one package upstream now, through the same probe ladder as a sweep: one version, or its
missing and disappeared versions and what the hub holds of it. Prints each version's answer
(present, absent, inconclusive) and the versions cleared because they answer again (their audit
blocks are lifted, as in a sweep). A recheck adds no miss: it never marks a version missing and
never confirms one early.

Options:
  --registry R       the registry name from hub.toml (required)
  --package P        the canonical package name: npm @scope/name, maven group:artifact, go the
                     module path, path kinds the repo (required)
  --version V        probe only this version (path kinds: the file path)

Needs permission system:write.

Examples:
  hub upstream recheck --registry npm --package left-pad --version 1.3.0
  hub upstream recheck npm @scope/name

${connectionHelp('system:write', "Exit status: 0 done; 1 refused by the server (e.g. a registry that is not audited), server error\nor hub unreachable (the server's message and request_id are printed); 2 bad usage.")}`,
  options: { registry: { type: 'string' }, package: { type: 'string' }, version: { type: 'string' } },
  positionals: { min: 0, max: 2 },
  async run({ io, values, positionals, json, api, command }) {
    const version = str(values, 'version', command);
    const body = { ...packageOf(values, positionals, command), ...(version !== undefined && { version }) };
    const answer = await api.call<Row>('POST', '/api/v1/admin/upstream/recheck', { body });
    if (json) return (printJson(io, answer), 0);
    const registry = answer.registry ?? body.registry;
    const name = answer.package_name ?? body.package_name;
    const probes = rowsOf(answer, 'probes');
    if (!probes.length)
      io.err(
        `nothing to probe: the hub holds no version of ${coordinate(registry, name)} and has no audit row for it\n`,
      );
    for (const p of probes) {
      const how = [p.rung ? `rung ${cell(p.rung)}` : '', p.detail ? cell(p.detail) : ''].filter(Boolean).join(': ');
      io.out(`${coordinate(registry, name, p.version)}: ${cell(p.answer)}${how ? ` (${how})` : ''}\n`);
    }
    const cleared = Array.isArray(answer.cleared) ? (answer.cleared as unknown[]) : [];
    if (probes.length)
      io.out(
        cleared.length
          ? `cleared ${cleared.map((v) => coordinate(registry, name, v)).join(', ')}\n`
          : 'nothing cleared\n',
      );
    for (const r of rowsOf(answer, 'rows'))
      io.out(
        `still ${cell(r.state)}: ${coordinate(registry, name, r.version)} (${plural(r.misses, 'miss', 'misses')})\n`,
      );
    return 0;
  },
});

const list = listCommand({
  name: 'upstream list',
  route: 'GET /api/v1/admin/upstream/disappeared',
  help: `Usage: hub upstream list [--registry R] [--state missing|disappeared] [--page N] [--per-page N]

Lists the versions the audit found gone upstream: "missing" (absent in at least one sweep, not yet
believed) and "disappeared" (confirmed: absent in confirm_after sweeps in a row, and for at least
confirm_min_age_secs), with their misses, times, policy and the probe rung that answered. The page
and total go to standard error.

Options:
  --registry R                   only this registry
  --state missing|disappeared    only rows in this state
  --page N                       this page (default 1)
  --per-page N                   rows per page (default: the hub's [limits] packages_per_page; at
                                 most 1000)

Needs permission system:read.

Examples:
  hub upstream list --state disappeared
  hub upstream list --registry npm --page 2 --per-page 100

${connectionHelp('system:read')}`,
  options: { registry: { type: 'string' }, state: { type: 'string' } },
  query({ values, command }) {
    const state = str(values, 'state', command);
    if (state !== undefined && !(STATES as readonly string[]).includes(state))
      throw new UsageError(`--state must be missing or disappeared, not "${state}"`, command);
    return { registry: str(values, 'registry', command), state };
  },
  rows: 'rows',
  columns: rowColumns(true),
  empty: ({ values }) => `no ${typeof values.state === 'string' ? values.state : 'missing or disappeared'} versions`,
  paging: { by: 'number' },
});

const status = adminCommand({
  name: 'upstream status',
  routes: ['GET /api/v1/admin/upstream/status/:registry/:name'],
  help: `Usage: hub upstream status --registry R --package P
       hub upstream status <registry> <package>

Shows the audit's view of one package: the policy in force for its registry (and whether it
overrides the hub's [upstream_audit] on_confirmed), whether the registry is audited and if not
why, the versions the hub holds, its missing and disappeared versions, and the registry's last
sweep.

Options:
  --registry R       the registry name from hub.toml (required)
  --package P        the canonical package name (required)

Needs permission system:read.

Examples:
  hub upstream status --registry npm --package left-pad
  hub upstream status go example.com/owner/module

${connectionHelp('system:read')}`,
  options: { registry: { type: 'string' }, package: { type: 'string' } },
  positionals: { min: 0, max: 2 },
  async run({ io, values, positionals, json, api, command }) {
    const p = packageOf(values, positionals, command);
    const answer = await api.call<Row>(
      'GET',
      `/api/v1/admin/upstream/status/${seg(p.registry)}/${seg(p.package_name)}`,
    );
    if (json) return (printJson(io, answer), 0);
    const held = Array.isArray(answer.held_versions) ? (answer.held_versions as unknown[]) : [];
    const last = answer.last_sweep as Row | null | undefined;
    io.out(`package:        ${coordinate(answer.registry ?? p.registry, answer.package_name ?? p.package_name)}\n`);
    io.out(
      `policy:         ${cell(answer.policy)}${answer.overridden ? ` (overrides the hub's ${cell(answer.audit_policy)})` : ''}\n`,
    );
    io.out(`audited:        ${answer.audited ? 'yes' : `no${answer.reason ? `: ${cell(answer.reason)}` : ''}`}\n`);
    io.out(`held versions:  ${held.length ? held.map(cell).join(', ') : 'none'}\n`);
    io.out(`last sweep:     ${last ? `${cell(last.at)} (${cell(last.outcome)})` : 'never'}\n`);
    const rows = rowsOf(answer, 'rows');
    if (!rows.length) io.out('no missing or disappeared versions\n');
    else table(io, rowColumns(false), rows);
    return 0;
  },
});

export const upstream = commandGroup(
  'upstream',
  `Usage: hub upstream <sweep|recheck|list|status> [options]

The upstream-disappearance audit: which versions this hub holds have vanished upstream.

Sub-commands:
  sweep [--registry R]                            sweep now, one line per registry (system:write)
  recheck --registry R --package P [--version V]  probe one package now (system:write)
  list [--registry R] [--state S] [--page N]      missing and disappeared versions (system:read)
  status --registry R --package P                 one package: policy, held versions, rows (system:read)

Run 'hub upstream <sub-command> --help' for its options.`,
  { sweep, recheck, list, status },
);
