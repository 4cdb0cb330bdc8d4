/** Usage errors exit 2 (packages/cli/README.md); `command` names the help to point at. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

export const HELP: Record<string, string> = {
  main: `hub: a caching proxy for package registries

Usage: hub <command> [options]

Server commands:
  serve              run the server
  migrate            create or update the database tables, then exit
  init               write a hub.toml from the upstreams this machine's package managers use

Admin commands (talk to a running hub over its admin API):
  audit-log          list access events (downloads, admin actions, denials)
  export-audit-log   write access events as CSV
  audit verify       check the audit log's hash chains and signed checkpoints (exit 1 when broken)
  users              create, block, unblock, show or list users
  token              create or revoke a token
  ip-blocks          add, remove or list blocked IP addresses and ranges
  block              block a package, a version or a file
  unblock            lift a block
  blocks             list blocks
  waivers            request, approve, reject, revoke or list time-boxed waivers of a block or flag
  packages           unlist or relist a version; published packages, their status, unpublish
  policies           list, create or delete access policies
  access-check       ask whether a user, token or role may do something (exit 1 when denied)
  cache              purge cached artifacts, revalidate a listing
  cleanup            run the registries' cleanup rules now (--dry-run: list what would go)
  oci                hosted container registries: garbage collection of pushed blobs
  reload             re-read hub.toml on every replica (exit 1 unless every one applied it)
  upstream           the upstream-disappearance audit: sweep, recheck, list, status
  events             list the notifications the hub sent (disappeared packages, outages)
  webhooks           list webhook deliveries: pending, delivered, dead-lettered
  health             the health card: database, registries, cache and audit (exit 1 unless ok)
  flags              list the flags external sources pushed (vulnerabilities, malware)
  exposure           who fetched a flagged version, before and after the flag (or --csv)
  exposure analyse   read held artifacts' dependencies now, for exposure through dependents
  sbom               CycloneDX or SPDX SBOM of a held version; the inventory of what is held and who pulled it
  lockfile           check a lockfile against the hub (exit 1 unless every entry installs); release required marks
  warm               fetch what a lockfile needs that hub does not hold yet, through hub's own routes

Signing in:
  login              sign in through the hub's identity provider; stores a hub token for later commands

Client conformance (talks to a running hub as package managers do; see packages/cli/README.md):
  check              an HTTP check and a tool check per registry (exit 1 when any fails)

Options:
  -h, --help     show help (also: hub <command> --help)
  -v, --version  print the version

Configuration comes from --config FILE, else $HUB_CONFIG, else ./hub.toml, else the built-in
default (one npm registry named "npm" whose upstream is your npm's registry).
Admin commands reach the hub at --url or $HUB_URL (default http://127.0.0.1:8080) with the
token in --token or $HUB_TOKEN (else the one hub login stored), and print JSON with --json.

Exit status: 0 success; 1 refused request, failed check or server error; 2 bad usage.`,
  serve: `Usage: hub serve [--config FILE] [--listen HOST:PORT]

Runs the server until SIGTERM or SIGINT. SIGHUP re-reads the config file, on this process only (as
\`hub reload --local\` does): a file with an error or a change that needs a restart is refused in the
log and the configuration in force keeps serving (docs/operations.md, "Reloading the configuration"). On SIGTERM /readyz answers 503 for [server] drain_secs
(default 5) while requests are still served, so a load balancer stops sending new ones; then the
listener closes, running downloads finish and hub exits 0. SIGINT (or a second signal) skips the wait.

Options:
  -c, --config FILE    hub.toml to use (default: $HUB_CONFIG, ./hub.toml, or the built-in default)
  -l, --listen ADDR    override [server] listen, e.g. 127.0.0.1:8080 or [::1]:8080
  -h, --help           show this help

Environment:
  HUB_ADMIN_TOKEN      the bootstrap admin's token (else printed once on first start)
  HUB_LOG_LEVEL        trace, debug, info (default), warn, error`,
  migrate: `Usage: hub migrate [--config FILE]

Creates or updates the tables of the runtime and of every loaded plugin, then exits.
The server also does this at start; run it by hand before rolling out replicas.

Options:
  -c, --config FILE    hub.toml to use
  -h, --help           show this help`,
  init: `Usage: hub init [--output FILE] [--force]

Writes a hub.toml with one registry per upstream that this machine's package managers are
configured with (npm, go, cargo, maven, gem, nuget, terraform); what it cannot find is left out.

Options:
  -o, --output FILE    where to write (default ./hub.toml; "-" for standard output)
  -f, --force          overwrite an existing file
  -h, --help           show this help`,
};
