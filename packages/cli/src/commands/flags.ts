/**
 * flags list and exposure: the flags pushed by external sources and who fetched a flagged version
 * (@hub/flags: GET /api/v1/admin/flags, /api/v1/admin/exposure[/export]).
 */
import type { Query } from '../client.js';
import { adminCommand, commandGroup, connectionHelp, withRoutes } from '../command.js';
import type { Command } from '../io.js';
import { checkOutput, saveExport } from '../export.js';
import { listCommand } from '../list-command.js';
import { exclusive, instant, positiveInt, str, type Values } from '../options.js';
import { cell, coordinate, printable, printJson, rowsOf, type Row } from '../output.js';
import { UsageError } from '../usage.js';

/** Weakest first, as the server orders them for min_effect. */
const EFFECTS = ['info', 'warn', 'gate', 'hard_block'] as const;
const WHEN = ['before-flag', 'after-flag', 'any'] as const;

const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

const listCmd = listCommand({
  name: 'flags list',
  route: 'GET /api/v1/admin/flags',
  help: `Usage: hub flags list [--include-dead] [--source S] [--registry R]

Lists the flags external sources (a vulnerability feed, a malware scanner, a review bot) pushed to
the hub: external id, source, coordinate ("@*" for a flag on every version of a name), kind,
effect, state, when it was raised and lifted, and the summary. Lifted flags (tombstones) are
left out unless --include-dead is given.

Effects:
  info, warn     reported by hub exposure, never refused
  gate           refused on registries with a security profile
  hard_block     refused on every registry

Options:
  --include-dead     also lifted flags (state "tombstone")
  --source S         only flags pushed by this flag source (a [[flag_sources]] name)
  --registry R       only flags on this registry

Needs permission system:read.

Examples:
  hub flags list
  hub flags list --include-dead --source osv-bridge --registry npm

${connectionHelp('system:read')}`,
  options: { 'include-dead': { type: 'boolean' }, source: { type: 'string' }, registry: { type: 'string' } },
  query: ({ values, command }) => ({
    include_dead: values['include-dead'] === true ? 'true' : undefined,
    source: str(values, 'source', command),
    registry: str(values, 'registry', command),
  }),
  rows: 'flags',
  row: (f) => ({ ...f, coordinate: coordinate(f.registry, f.package_name, f.version ?? f.version_range) }),
  columns: [
    { header: 'EXTERNAL_ID', keys: ['external_id'] },
    { header: 'SOURCE', keys: ['source'] },
    { header: 'COORDINATE', keys: ['coordinate'] },
    { header: 'KIND', keys: ['kind'] },
    { header: 'EFFECT', keys: ['effect'] },
    { header: 'STATE', keys: ['state'] },
    { header: 'RAISED', keys: ['raised_at'] },
    { header: 'LIFTED', keys: ['lifted_at'] },
    { header: 'SUMMARY', keys: ['summary'] },
  ],
  empty: ({ values }) =>
    values['include-dead'] === true ? 'no flags' : 'no active flags (add --include-dead for lifted ones)',
});

const feedsCmd = listCommand({
  name: 'flags feeds',
  route: 'GET /api/v1/admin/advisory-feeds',
  otherRoutes: ['POST /api/v1/admin/advisory-feeds/:name/pull'],
  help: `Usage: hub flags feeds [--pull NAME]

Lists the OSV advisory feeds the hub pulls ([[advisory_feeds]]): name, whether the last pull
worked (HEALTHY) and why not (PROBLEM), when it last pulled, succeeded and changed a flag, the
next scheduled pull, the records read and the active flags the feed raised. A failed pull keeps
the flags of the last good one.

With --pull NAME, pulls that feed now and prints the outcome (updated, not_modified or failed,
with the problem); exit 1 when the pull failed. Another replica pulling it is an error (409).

Options:
  --pull NAME        pull this feed now (needs system:write)

Needs permission system:read.

Examples:
  hub flags feeds
  hub flags feeds --pull osv-npm

${connectionHelp('system:read')}`,
  options: { pull: { type: 'string' } },
  async instead({ io, values, json, api, command }) {
    const name = str(values, 'pull', command);
    if (name === undefined) return undefined;
    const answer = await api.call<Row>('POST', `/api/v1/admin/advisory-feeds/${encodeURIComponent(name)}/pull`);
    if (json) printJson(io, answer);
    else io.out(`${cell(name)}: ${cell(answer.outcome)}${answer.problem ? `: ${cell(answer.problem)}` : ''}\n`);
    return answer.outcome === 'failed' ? 1 : 0;
  },
  rows: 'feeds',
  columns: [
    { header: 'NAME', keys: ['name'] },
    { header: 'HEALTHY', keys: ['healthy'] },
    { header: 'EFFECT', keys: ['effect'] },
    { header: 'FLAGS', keys: ['flags'] },
    { header: 'RECORDS', keys: ['records'] },
    { header: 'LAST_PULL', keys: ['last_pull_at'] },
    { header: 'LAST_SUCCESS', keys: ['last_success_at'] },
    { header: 'LAST_CHANGE', keys: ['last_change_at'] },
    { header: 'NEXT_PULL', keys: ['next_pull_at'] },
    { header: 'PROBLEM', keys: ['problem'] },
  ],
  empty: 'no advisory feeds configured',
});

export const flags = commandGroup(
  'flags',
  `Usage: hub flags list [options]
       hub flags feeds [--pull NAME]

The flags external sources pushed to the hub (@hub/flags), and the advisory feeds it pulls.
Who fetched a flagged version: hub exposure.

Sub-commands:
  list [--include-dead] [--source S] [--registry R]   list flags (system:read)
  feeds [--pull NAME]                                  advisory feeds and their state (system:read; --pull: system:write)

Run 'hub flags <sub-command> --help' for its options.`,
  { list: listCmd, feeds: feedsCmd },
);

/** The coverage of the report, for standard error: what it can and cannot know. */
function coverageLines(coverage: unknown): string[] {
  if (!isRow(coverage)) return [];
  const registries = rowsOf(coverage, 'registries');
  const withSbom = registries.filter((r) => r.sbom === true).map((r) => printable(String(r.name)));
  const count = coverage.registries_with_sbom ?? withSbom.length;
  const lines = [
    `coverage: ${cell(count)} of ${registries.length} registries have an SBOM extractor${withSbom.length ? ` (${withSbom.join(', ')})` : ''}`,
  ];
  if (coverage.analysis) lines.push(`dependency analysis: ${cell(coverage.analysis)}`);
  const analysed = registries.filter((r) => r.analysed_at);
  if (analysed.length)
    lines.push(
      `analysed: ${analysed.map((r) => `${cell(r.name)} at ${cell(r.analysed_at)}${r.artifacts_analysed !== undefined ? ` (${cell(r.artifacts_analysed)} artifacts)` : ''}`).join('; ')}`,
    );
  const sources = rowsOf(coverage, 'sources');
  const said = sources.map((s) =>
    s.pushed
      ? `${cell(s.name)} pushed ${cell(s.flags)} flag${Number(s.flags) === 1 ? '' : 's'} (last ${cell(s.last_push_at)})`
      : `${cell(s.name)} never pushed`,
  );
  lines.push(`flag sources: ${said.length ? said.join('; ') : 'none configured'}`);
  return lines;
}

/** The report's filters as query parameters; the export takes the same. */
function exposureQuery(values: Values, command: string): Query {
  const minEffect = str(values, 'min-effect', command);
  if (minEffect !== undefined && !(EFFECTS as readonly string[]).includes(minEffect))
    throw new UsageError(`--min-effect must be one of ${EFFECTS.join(', ')}, not "${minEffect}"`, command);
  const when = str(values, 'when', command);
  if (when !== undefined && !(WHEN as readonly string[]).includes(when))
    throw new UsageError(`--when must be before-flag, after-flag or any, not "${when}"`, command);
  return {
    source: str(values, 'source', command),
    min_effect: minEffect,
    when,
    registry: str(values, 'registry', command),
    package: str(values, 'package', command),
    from: instant(str(values, 'from', command), 'from', command),
    depth: positiveInt(str(values, 'depth', command), 'depth', command)?.toString(),
  };
}

const exposureReport = listCommand({
  name: 'exposure',
  route: 'GET /api/v1/admin/exposure',
  otherRoutes: ['GET /api/v1/admin/exposure/export'],
  help: `Usage: hub exposure [--source S] [--min-effect E] [--when before-flag|after-flag|any]
                    [--registry R] [--package P] [--from TIME] [--depth N]
                    [--csv|--jsonl [--output FILE]]

The exposure report: who fetched a flagged version, one row per consumer (a user, or ip:<address>
for requests without a token), version fetched and flag, with the consumer's addresses, the flag, how
many downloads came before and after the flag was raised, and the first and last fetch. Lifted
flags still answer. Where the hub has analysed the SBOMs of what it holds, a row may also be a
download of a dependent of the flagged package, or of a dependent of a dependent, up to --depth
links (EXPOSURE "dependent", VIA the chain: top-app@1.0.0 -> mid-b@1.0.0 -> flagged@1.0.0).
What the report covers goes to standard error: how many registries have an SBOM extractor,
whether and when dependency analysis ran, and which flag sources have pushed anything.

Options:
  --source S         only flags of this flag source
  --min-effect E     only flags at least this strong: info < warn < gate < hard_block
  --when W           before-flag: consumers who fetched before the flag was raised; after-flag:
                     who fetched after it; any (the default)
  --registry R       only this registry
  --package P        only this package (the canonical name)
  --from TIME        count fetches from TIME on: RFC 3339 (2025-01-31T12:00:00Z), a date
                     (2025-01-31, UTC), or a span back from now (90m, 24h, 7d)
  --depth N          dependency links followed from the flagged version, 1 to 10 (default 5)
  --csv              the rows as CSV (RFC 4180, with a header line), streamed to standard output
  --jsonl            the rows as JSON lines (each with its chain), streamed to standard output
  --output FILE      with --csv or --jsonl: write FILE instead, only when the export completes

Needs permission system:read.

Examples:
  hub exposure --min-effect hard_block --when before-flag
  hub exposure --source osv-bridge --registry npm --package event-stream --from 30d
  hub exposure --csv --output exposure.csv
  hub exposure --package event-stream --depth 10 --jsonl --output chains.jsonl

${connectionHelp('system:read')}`,
  options: {
    source: { type: 'string' },
    'min-effect': { type: 'string' },
    when: { type: 'string' },
    registry: { type: 'string' },
    package: { type: 'string' },
    from: { type: 'string' },
    depth: { type: 'string' },
    csv: { type: 'boolean' },
    jsonl: { type: 'boolean' },
    output: { type: 'string', short: 'o' },
  },
  async instead({ io, values, json, api, command }) {
    const query = exposureQuery(values, command);
    exclusive(values, ['csv', 'jsonl'], command);
    const output = str(values, 'output', command);
    const format = values.csv === true ? 'csv' : values.jsonl === true ? 'jsonl' : undefined;
    if (output !== undefined && format === undefined) throw new UsageError('--output needs --csv or --jsonl', command);
    if (format === undefined) return undefined;
    checkOutput(output ?? '-', command);
    return saveExport(
      io,
      api,
      '/api/v1/admin/exposure/export',
      { format, ...query },
      output ?? '-',
      json,
      format === 'csv' ? 'CSV' : 'JSON lines',
    );
  },
  query: ({ values, command }) => exposureQuery(values, command),
  rows: 'rows',
  row: (r) => ({
    ...r,
    coordinate: coordinate(r.registry, r.package_name, r.version),
    fetched: coordinate(r.registry, r.fetched_package, r.fetched_version),
    flag: `${cell(r.source)}/${cell(r.external_id)}`,
  }),
  // Servers with dependency analysis say whether a row is a direct download or a dependent, and via what.
  columns: (rows) => {
    const dependents = rows.some((r) => r.exposure !== undefined);
    return [
      { header: 'CONSUMER', keys: ['consumer'] },
      { header: 'IPS', keys: ['ip_addresses'] },
      { header: 'COORDINATE', keys: ['coordinate'] },
      ...(dependents ? [{ header: 'EXPOSURE', keys: ['exposure'] }] : []),
      // Hubs that walk dependents of dependents say which version the consumer fetched.
      ...(rows.some((r) => r.fetched_package !== undefined) ? [{ header: 'FETCHED', keys: ['fetched'] }] : []),
      { header: 'FLAG', keys: ['flag'] },
      { header: 'KIND', keys: ['kind'] },
      { header: 'EFFECT', keys: ['effect'] },
      { header: 'FLAG_STATE', keys: ['flag_state'] },
      { header: 'RAISED', keys: ['flag_raised_at'] },
      { header: 'BEFORE', keys: ['fetches_before_flag'] },
      { header: 'AFTER', keys: ['fetches_after_flag'] },
      { header: 'FIRST_FETCH', keys: ['first_fetch_at'] },
      { header: 'LAST_FETCH', keys: ['last_fetch_at'] },
      ...(dependents ? [{ header: 'VIA', keys: ['via'] }] : []),
    ];
  },
  empty: 'no exposure rows match',
  notes: (answer) => coverageLines(answer.coverage),
});

const exposureAnalyse = adminCommand({
  name: 'exposure analyse',
  routes: ['POST /api/v1/admin/exposure/analyse'],
  help: `Usage: hub exposure analyse [--registry R]

Runs dependency analysis now (it also runs hourly): reads, through each kind's SBOM extractor, the
manifest of every held artifact not read yet, so that the exposure report can name who fetched a
dependent of a flagged version. Prints per registry how many artifacts are analysed in all, how many
were read now, and how many could not be read.

Options:
  --registry R       only this registry (the name from hub.toml)

Needs permission system:write.

Examples:
  hub exposure analyse
  hub exposure analyse --registry npm

${connectionHelp('system:write')}`,
  options: { registry: { type: 'string' } },
  async run({ io, values, json, api, command }) {
    const registry = str(values, 'registry', command);
    const answer = await api.call<Row>('POST', '/api/v1/admin/exposure/analyse', {
      body: registry !== undefined ? { registry } : {},
    });
    if (json) printJson(io, answer);
    else {
      const analyses = rowsOf(answer, 'analyses');
      if (!analyses.length) io.err('no registry has an SBOM extractor\n');
      for (const a of analyses)
        io.out(
          `${printable(String(a.registry))}: ${cell(a.artifacts)} artifacts analysed (${cell(a.analysed)} read now, ${cell(a.failed)} unreadable)\n`,
        );
    }
    return 0;
  },
});

/** `hub exposure` is the report; `hub exposure analyse` runs dependency analysis. */
export const exposure: Command = withRoutes(
  'exposure',
  ['GET /api/v1/admin/exposure', 'GET /api/v1/admin/exposure/export', 'POST /api/v1/admin/exposure/analyse'],
  (argv, io) => (argv[0] === 'analyse' ? exposureAnalyse(argv.slice(1), io) : exposureReport(argv, io)),
);
