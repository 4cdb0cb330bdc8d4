/** check: the client conformance checker of SPEC 4.3, an HTTP check and a tool check per registry. */
import { adminCommand, connectionHelp } from '../command.js';
import { KIND_CHECKS, type Outcome } from '../conformance.js';
import { str, type OptionSpec } from '../options.js';
import { printable, printJson } from '../output.js';
import { UsageError } from '../usage.js';

/** SPEC 4.3: the checker's base URL when neither --url nor $HUB_URL is given. */
const CHECK_URL = 'http://localhost:8080';

export interface CheckRow {
  registry: string;
  kind: string;
  check: 'http' | 'tool';
  result: Outcome['result'];
  detail: string;
}

const OPTIONS: OptionSpec = Object.fromEntries(KIND_CHECKS.flatMap((k) => [[k.kind, { type: 'string' }], [k.coordOption, { type: 'string' }]]));

const kindHelp = KIND_CHECKS.map((k) => `  --${k.kind} NAME, --${k.coordOption} ${k.form}\n${' '.repeat(21)}default ${k.fallback}`).join('\n');

export const check = adminCommand({
  name: 'check',
  defaultUrl: CHECK_URL,
  help: `Usage: hub check [--url URL] [--token T] [--npm NAME] [--cargo NAME] [--go NAME]
                 [--github NAME] [--openvsx NAME] [--vscode-marketplace NAME] [--maven NAME]
                 [--terraform NAME] [--rubygems NAME] [--nuget NAME] [--<kind>-<coordinate> C]

Checks that clients can use the hub (SPEC 4.3): for each registry given, an HTTP check and a tool
check, one line each (PASS, FAIL with why, or SKIP with why), then a summary. The token is
optional and sent as a Bearer token to the hub only.

Per kind:
  npm          http: GET <package> with Accept */* and <package>/<version>/tarball are 200 gzip
               tool: the packument names a tarball that is gzip and matches dist.integrity
  cargo        http: registry/config.json is 200 with "dl"
               tool: cargo fetch of the crate through the sparse index (skipped without cargo)
  go           http: <module>/@latest is 200 JSON with "Version"
               tool: go mod download <module>@<version> with GOPROXY set to the hub alone and
               no checksum database (skipped without go; go sends tokens only over https)
  github       http: the release asset is 200 gzip (ZIP for a .zip asset); no tool check
  openvsx and vscode-marketplace
               http: <publisher>.<extension>/<version>/vsix answers anything but 5xx
               tool: the same is a ZIP (skipped on 404)
  maven        http: maven2/<group path>/<artifact>/maven-metadata.xml is XML <metadata>
               tool: the version's .pom is XML <project>
  terraform    http: v1/providers/<ns>/<type>/versions lists at least one version
               tool: the version's download document has "download_url" (skipped on 404)
  rubygems     http: api/v1/gems/<gem>.json has "name" equal to the gem
               tool: gems/<gem>-<version>.gem is a POSIX tar holding metadata.gz and data.tar.gz
  nuget        http: nuget/v3/index.json has version "3.0.0" and resources
               tool: the flat container lists the version and its .nupkg is a ZIP

Registries and probe coordinates (at least one registry):
${kindHelp}

Needs permission source:read (no token when the hub lets anonymous callers read).

Examples:
  hub check --npm npm --maven maven --nuget nuget
  hub check --url http://127.0.0.1:8080 --go go --go-module rsc.io/quote@v1.5.2 --json

${connectionHelp('source:read', 'Exit status: 0 every check passed or was skipped; 1 any check failed (an unreachable hub fails\nevery check); 2 bad usage (no registry given, a malformed coordinate).', {
    url: CHECK_URL,
    json: 'print {checks: [{registry, kind, check, result, detail}], passed, failed,\n                     skipped} instead of lines',
  })}`,
  options: OPTIONS,
  async run({ io, values, json, api, command }) {
    const plan = KIND_CHECKS.map((k) => {
      const name = str(values, k.kind, command);
      const given = str(values, k.coordOption, command);
      if (given !== undefined && name === undefined) throw new UsageError(`--${k.coordOption} needs --${k.kind} NAME`, command);
      const coord = k.parse(given ?? k.fallback);
      if (typeof coord === 'string') throw new UsageError(`--${k.coordOption} must be ${coord}, not "${given}"`, command);
      return { k, name, coord };
    }).filter((p) => p.name !== undefined);
    if (!plan.length) throw new UsageError(`name at least one registry to check: ${KIND_CHECKS.map((k) => `--${k.kind} NAME`).join(', ')}`, command);

    const checks: CheckRow[] = [];
    for (const { k, name, coord } of plan) {
      const { http, tool } = await k.run({ api, name: name!, env: io.env }, coord);
      for (const [which, o] of [['http', http], ['tool', tool]] as const) {
        const row: CheckRow = { registry: name!, kind: k.kind, check: which, result: o.result, detail: o.detail };
        checks.push(row);
        if (!json) io.out(`${o.result.toUpperCase()} ${printable(name!)} ${which}: ${o.detail}\n`);
      }
    }
    const count = (r: Outcome['result']) => checks.filter((c) => c.result === r).length;
    const [passed, failed, skipped] = [count('pass'), count('fail'), count('skip')];
    if (json) printJson(io, { checks, passed, failed, skipped });
    else io.out(`${checks.length} checks: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    return failed ? 1 : 0;
  },
});
