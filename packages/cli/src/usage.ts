/** Usage errors exit 2 (INTERFACE.md section 6). */
export class UsageError extends Error {}

export const HELP: Record<string, string> = {
  main: `hub: a caching proxy for package registries

Usage: hub <command> [options]

Commands:
  serve      run the server
  migrate    create or update the database tables, then exit
  init       write a hub.toml from the upstreams this machine's package managers use

Options:
  -h, --help     show help (also: hub <command> --help)
  -v, --version  print the version

Configuration comes from --config FILE, else $HUB_CONFIG, else ./hub.toml, else the built-in
default (one npm registry named "npm" whose upstream is your npm's registry).`,
  serve: `Usage: hub serve [--config FILE] [--listen HOST:PORT]

Runs the server until SIGTERM or SIGINT, then finishes running downloads and exits 0.

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
