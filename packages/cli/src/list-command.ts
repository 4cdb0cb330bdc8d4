/**
 * The list commands (hub blocks list, hub users list, hub events, hub audit-log, ...), from one factory:
 * a GET of one admin route with the command's filters as query parameters; with --json the answer as the
 * server gave it, else its rows as a table, or one line on standard error when there are none; and one
 * of three ways of paging, each with the same options and the same line about what follows.
 */
import { RequestError, type Query } from './client.js';
import { adminCommand, type RunContext } from './command.js';
import type { Command } from './io.js';
import { positiveInt, str, type OptionSpec } from './options.js';
import { cell, printJson, rowsOf, table, type Column, type Row } from './output.js';
import { UsageError } from './usage.js';

export type Paging =
  /** One page: --limit N and --cursor C; "more <noun> follow: add --cursor C" on standard error. */
  | { by: 'cursor'; noun: string }
  /** Every page, following the server's cursors, unless --limit asks for one; --page-size sets the step. */
  | { by: 'follow'; noun: string }
  /** Numbered pages: --page N and --per-page N; "page X of Y (total T)" on standard error. */
  | { by: 'number' };

export interface ListCommandSpec {
  /** The full command as typed, e.g. "blocks list". */
  name: string;
  /** The route listed, `GET /api/v1/admin/...` in the router's spelling. */
  route: string;
  /** Further routes the command calls (an export, an action of `instead`), for the parity test. */
  otherRoutes?: readonly string[];
  help: string;
  /** The command's own options (the paging options are added). */
  options?: OptionSpec;
  positionals?: { min: number; max: number };
  /** The path called, when the route has parameters (default: the route's path). */
  path?(c: RunContext): string;
  /** The filters, as query parameters. */
  query?(c: RunContext): Query;
  /** The answer's member that holds the rows. */
  rows: string;
  columns: Column[] | ((rows: Row[]) => Column[]);
  /** Cells worked out from a row (a coordinate, a joined scope). */
  row?(r: Row): Row;
  /** The line on standard error when there are no rows. */
  empty: string | ((c: RunContext) => string);
  paging?: Paging;
  /** A mode of the command that is not the list (an export, a pull): a number is its exit status. */
  instead?(c: RunContext): Promise<number | undefined>;
  /** Lines for standard error after the table or the empty line (what a report covers). */
  notes?(answer: Row): string[];
}

const PAGING_OPTIONS = {
  cursor: { limit: { type: 'string' }, cursor: { type: 'string' } },
  follow: { limit: { type: 'string' }, cursor: { type: 'string' }, 'page-size': { type: 'string' } },
  number: { page: { type: 'string' }, 'per-page': { type: 'string' } },
} as const satisfies Record<Paging['by'], OptionSpec>;

export function listCommand(spec: ListCommandSpec): Command {
  const paging = spec.paging;
  return adminCommand({
    name: spec.name,
    routes: [spec.route, ...(spec.otherRoutes ?? [])],
    help: spec.help,
    options: { ...spec.options, ...(paging && PAGING_OPTIONS[paging.by]) },
    positionals: spec.positionals,
    async run(c) {
      const instead = await spec.instead?.(c);
      if (instead !== undefined) return instead;
      const path = spec.path?.(c) ?? spec.route.replace(/^GET /, '');
      const filters = spec.query?.(c) ?? {};
      const { io, json } = c;
      if (paging?.by === 'follow') {
        const { rows, cursor } = await follow(c, path, filters, spec.rows);
        if (json) return (printJson(io, { [spec.rows]: rows, next_cursor: cursor ?? null }), 0);
        show(c, spec, rows);
        if (cursor) io.err(`more ${paging.noun} follow: add --cursor ${cell(cursor)}\n`);
        return 0;
      }
      const answer = await c.api.call<Row>('GET', path, { query: { ...filters, ...pageQuery(c, paging) } });
      if (json) return (printJson(io, answer), 0);
      const rows = rowsOf(answer, spec.rows);
      if (paging?.by === 'number') {
        const total = Number(answer.total ?? rows.length);
        const perPage = Number(answer.per_page ?? (rows.length || 1));
        const where = `page ${cell(answer.page ?? 1)} of ${Math.max(1, Math.ceil(total / perPage))} (total ${total})`;
        if (rows.length || !total) show(c, spec, rows);
        if (total) io.err(`${rows.length ? '' : 'no rows on this page: '}${where}\n`);
      } else show(c, spec, rows);
      if (paging?.by === 'cursor' && typeof answer.next_cursor === 'string' && answer.next_cursor)
        io.err(`more ${paging.noun} follow: add --cursor ${cell(answer.next_cursor)}\n`);
      for (const line of spec.notes?.(answer) ?? []) io.err(`${line}\n`);
      return 0;
    },
  });
}

/** The table, or the empty line. */
function show(c: RunContext, spec: ListCommandSpec, rows: Row[]): void {
  if (!rows.length) return c.io.err(`${typeof spec.empty === 'string' ? spec.empty : spec.empty(c)}\n`);
  table(
    c.io,
    typeof spec.columns === 'function' ? spec.columns(rows) : spec.columns,
    spec.row ? rows.map(spec.row) : rows,
  );
}

function pageQuery(c: RunContext, paging: Paging | undefined): Query {
  const n = (name: string) => positiveInt(str(c.values, name, c.command), name, c.command);
  if (paging?.by === 'cursor') return { limit: n('limit'), cursor: str(c.values, 'cursor', c.command) };
  if (paging?.by === 'number') return { page: n('page'), per_page: n('per-page') };
  return {};
}

/** Every page from --cursor on (one page with --limit); the cursor after the last page read. */
async function follow(
  c: RunContext,
  path: string,
  filters: Query,
  member: string,
): Promise<{ rows: Row[]; cursor: string | undefined }> {
  const limit = positiveInt(str(c.values, 'limit', c.command), 'limit', c.command);
  const pageSize = positiveInt(str(c.values, 'page-size', c.command), 'page-size', c.command);
  if (limit !== undefined && pageSize !== undefined)
    throw new UsageError('--limit and --page-size cannot be used together', c.command);
  let cursor = str(c.values, 'cursor', c.command);
  const rows: Row[] = [];
  const seen = new Set<string>();
  for (;;) {
    const page = await c.api.call<Row>('GET', path, { query: { ...filters, cursor, limit: limit ?? pageSize } });
    rows.push(...rowsOf(page, member));
    const next = typeof page.next_cursor === 'string' && page.next_cursor ? page.next_cursor : undefined;
    if (limit !== undefined || !next) return { rows, cursor: next };
    if (seen.has(next))
      throw new RequestError(`the server returned the cursor ${next} twice; stopping after ${rows.length} ${member}`);
    seen.add(next);
    cursor = next;
  }
}
