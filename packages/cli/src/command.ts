/**
 * How an admin command is declared: its help, its options and a `run` that gets parsed values and
 * an API client. Parsing, --help, --json error bodies and sub-command dispatch live here once.
 */
import { adminClient, DEFAULT_URL, RequestError, type AdminClient } from './client.js';
import type { Command, Io } from './io.js';
import { CONNECTION_OPTIONS, parse, type OptionSpec, type Values } from './options.js';
import { printJson } from './output.js';
import { UsageError } from './usage.js';

export interface RunContext {
  io: Io;
  values: Values;
  positionals: string[];
  /** --json was given: print the answer as JSON instead of lines and tables. */
  json: boolean;
  api: AdminClient;
  /** "ip-blocks add": for UsageError hints. */
  command: string;
}

export interface AdminCommandSpec {
  /** The full command as typed, e.g. "ip-blocks add". */
  name: string;
  /**
   * The admin API routes the command calls, as `METHOD /path` in the router's spelling
   * (`DELETE /api/v1/admin/blocks/:id`): the parity test matches them against the mounted routes.
   */
  routes: readonly string[];
  help: string;
  options?: OptionSpec;
  positionals?: { min: number; max: number };
  /** The hub when neither --url nor $HUB_URL is given (default: the default listen address). */
  defaultUrl?: string;
  run(c: RunContext): Promise<number>;
}

/** An admin command: takes --url, --token and --json besides its own options. */
export function adminCommand(spec: AdminCommandSpec): Command {
  return describe(
    async (argv, io) => {
      const { values, positionals } = parse(
        argv,
        { ...CONNECTION_OPTIONS, ...spec.options },
        { command: spec.name, positionals: spec.positionals },
      );
      if (values.help) return (io.out(`${spec.help}\n`), 0);
      const api = adminClient(
        { url: values.url as string | undefined, token: values.token as string | undefined },
        io.env,
        spec.name,
        spec.defaultUrl,
      );
      const json = values.json === true;
      try {
        return await spec.run({ io, values, positionals, json, api, command: spec.name });
      } catch (e) {
        if (json && e instanceof RequestError && e.body !== undefined) printJson(io, e.body);
        throw e;
      }
    },
    { name: spec.name, routes: spec.routes },
  );
}

/** `hub <group> <sub> ...`: dispatches on the first argument; `hub <group> --help` lists the subs. */
export function commandGroup(name: string, help: string, subs: Record<string, Command>): Command {
  const group: Command = async (argv, io) => {
    const [sub, ...rest] = argv;
    if (sub === '-h' || sub === '--help' || sub === 'help') return (io.out(`${help}\n`), 0);
    if (sub === undefined) throw new UsageError(`${name} needs a sub-command: ${Object.keys(subs).join(', ')}`, name);
    const run = subs[sub];
    if (!run)
      throw new UsageError(`unknown sub-command "${name} ${sub}" (one of ${Object.keys(subs).join(', ')})`, name);
    return run(rest, io);
  };
  return Object.assign(group, { [SUBS]: subs });
}

/** What a command declares for the parity test: its name and the admin routes it calls. */
export interface CommandRoutes {
  name: string;
  routes: readonly string[];
}

const ROUTES = Symbol('routes');
const SUBS = Symbol('subs');

function describe(command: Command, d: CommandRoutes): Command {
  return Object.assign(command, { [ROUTES]: d });
}

/** Declares the routes of a command not built with adminCommand (hub export-audit-log streams CSV). */
export const withRoutes = (name: string, routes: readonly string[], command: Command): Command =>
  describe(command, { name, routes });

/** Every command of a table (groups expanded) with the routes it declares; commands without routes (serve, check) have none. */
export function commandRoutes(table: Record<string, Command>, prefix = ''): CommandRoutes[] {
  const out: CommandRoutes[] = [];
  for (const [name, c] of Object.entries(table)) {
    const full = `${prefix}${name}`;
    const subs = (c as { [SUBS]?: Record<string, Command> })[SUBS];
    if (subs) out.push(...commandRoutes(subs, `${full} `));
    else out.push((c as { [ROUTES]?: CommandRoutes })[ROUTES] ?? { name: full, routes: [] });
  }
  return out;
}

/**
 * The text every admin command's help ends with; `o` changes the default URL and what --json prints
 * for a command that is not a plain admin API call (hub check).
 */
export function connectionHelp(
  permission: string,
  exit = "Exit status: 0 done; 1 refused by the server, server error or hub unreachable (the\nserver's message and request_id are printed); 2 bad usage.",
  o: { url?: string; json?: string } = {},
): string {
  return `Connection:
  --url URL          the hub (default: $HUB_URL, else ${o.url ?? DEFAULT_URL})
  --token TOKEN      a token holding ${permission} (default: $HUB_TOKEN; prefer the
                     variable, since arguments are visible to other users of the machine)
  --json             ${o.json ?? "print the server's answer as JSON instead of text"}
  -h, --help         show this help

${exit}`;
}
