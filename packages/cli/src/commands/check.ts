/**
 * check: the client conformance checker of packages/cli/README.md, an HTTP check and a tool check per registry. The
 * options, the help and the checks come from the loaded kinds' `clientCheck` hooks.
 */
import type { ClientCheckResult } from '@hub/runtime';
import type { CheckableKind } from '../check-kinds.js';
import { adminCommand, connectionHelp } from '../command.js';
import type { Command } from '../io.js';
import { str, type OptionSpec } from '../options.js';
import { printable, printJson } from '../output.js';
import { UsageError } from '../usage.js';

/** `hub check` (packages/cli/README.md): the checker's base URL when neither --url nor $HUB_URL is given. */
const CHECK_URL = 'http://localhost:8080';

export interface CheckRow {
  registry: string;
  kind: string;
  check: 'http' | 'tool';
  result: ClientCheckResult;
  detail: string;
}

/** Words joined to lines of at most `width` characters, continuation lines indented by `indent`. */
function wrap(words: readonly string[], width: number, indent: number): string {
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    if (line && line.length + 1 + w.length > width) {
      lines.push(line);
      line = `${' '.repeat(indent)}${w}`;
    } else line = line ? `${line} ${w}` : w;
  }
  return [...lines, line].join('\n');
}

/** "Per kind:": each kind's help lines beside its id; neighbours with the same lines share one entry. */
function perKindHelp(kinds: readonly CheckableKind[]): string {
  const groups: Array<{ ids: string[]; lines: readonly string[] }> = [];
  for (const k of kinds) {
    const last = groups.at(-1);
    if (last && last.lines.join('\n') === k.check.help.join('\n')) last.ids.push(k.id);
    else groups.push({ ids: [k.id], lines: k.check.help });
  }
  const pad = ' '.repeat(15);
  return groups
    .map(({ ids, lines }) => {
      const label = ids.length === 1 ? ids[0]! : `${ids.slice(0, -1).join(', ')} and ${ids.at(-1)}`;
      const body = lines.map((l) => `${pad}${l}`);
      if (label.length <= 11 && body.length) body[0] = `  ${label.padEnd(13)}${lines[0]}`;
      else body.unshift(`  ${label}`);
      return body.join('\n');
    })
    .join('\n');
}

function help(kinds: readonly CheckableKind[]): string {
  const usage = wrap(
    [
      'Usage: hub check [--url URL] [--token T]',
      ...kinds.map((k) => `[--${k.id} NAME]`),
      '[--<kind>-<coordinate> C]',
      '[--config FILE]',
    ],
    95,
    17,
  );
  const coordinates = kinds
    .map((k) => `  --${k.id} NAME, --${k.check.option} ${k.check.form}\n${' '.repeat(21)}default ${k.check.fallback}`)
    .join('\n');
  return `${usage}

Checks that clients can use the hub (see packages/cli/README.md): for each registry given, an HTTP check and a tool
check, one line each (PASS, FAIL with why, or SKIP with why), then a summary. The token is
optional and sent as a Bearer token to the hub only.

Per kind:
${perKindHelp(kinds)}

Registries and probe coordinates (at least one registry):
${coordinates}

Kinds come from hub's default distribution and from [plugins] load of the configuration:
  -c, --config FILE  hub.toml naming more kind packages to check (default: $HUB_CONFIG, else
                     ./hub.toml when present); kinds without a client check are not offered

Needs permission source:read (no token when the hub lets anonymous callers read).

Examples:
  hub check --npm npm --maven maven --nuget nuget
  hub check --url http://127.0.0.1:8080 --go go --go-module rsc.io/quote@v1.5.2 --json

${connectionHelp(
  'source:read',
  'Exit status: 0 every check passed or was skipped; 1 any check failed (an unreachable hub fails\nevery check); 2 bad usage (no registry given, a malformed coordinate).',
  {
    url: CHECK_URL,
    json: 'print {checks: [{registry, kind, check, result, detail}], passed, failed,\n                     skipped} instead of lines',
  },
)}`;
}

/** `hub check` over these kinds. */
export function checkCommand(kinds: readonly CheckableKind[]): Command {
  const options: OptionSpec = {
    config: { type: 'string', short: 'c' },
    ...Object.fromEntries(
      kinds.flatMap((k) => [
        [k.id, { type: 'string' }],
        [k.check.option, { type: 'string' }],
      ]),
    ),
  };
  return adminCommand({
    name: 'check',
    // hub check calls registry routes through the proxy, not the admin API.
    routes: [],
    defaultUrl: CHECK_URL,
    help: help(kinds),
    options,
    async run({ io, values, json, api, command }) {
      const plan = kinds
        .map((k) => {
          const name = str(values, k.id, command);
          const given = str(values, k.check.option, command);
          if (given !== undefined && name === undefined)
            throw new UsageError(`--${k.check.option} needs --${k.id} NAME`, command);
          const coordinate = k.parse(given ?? k.check.fallback);
          if (typeof coordinate === 'string')
            throw new UsageError(`--${k.check.option} must be ${coordinate}, not "${given}"`, command);
          return { k, name, coordinate };
        })
        .filter((p) => p.name !== undefined);
      if (!plan.length)
        throw new UsageError(
          `name at least one registry to check: ${kinds.map((k) => `--${k.id} NAME`).join(', ')}`,
          command,
        );

      const { checkKit } = await import('../check-kit.js');
      const checks: CheckRow[] = [];
      for (const { k, name, coordinate } of plan) {
        const { http, tool } = await k.check.run(checkKit(api, name!, io.env), coordinate);
        for (const [which, o] of [
          ['http', http],
          ['tool', tool],
        ] as const) {
          const row: CheckRow = { registry: name!, kind: k.id, check: which, result: o.result, detail: o.detail };
          checks.push(row);
          if (!json) io.out(`${o.result.toUpperCase()} ${printable(name!)} ${which}: ${printable(o.detail)}\n`);
        }
      }
      const count = (r: ClientCheckResult) => checks.filter((c) => c.result === r).length;
      const [passed, failed, skipped] = [count('pass'), count('fail'), count('skip')];
      if (json) printJson(io, { checks, passed, failed, skipped });
      else io.out(`${checks.length} checks: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
      return failed ? 1 : 0;
    },
  });
}

/** `hub check`: loads the kinds first (their hooks make the options), so other commands start without them. */
export const check: Command = async (argv, io) => {
  const { checkableKinds, configFlag } = await import('../check-kinds.js');
  return checkCommand(await checkableKinds(configFlag(argv), io.env))(argv, io);
};
