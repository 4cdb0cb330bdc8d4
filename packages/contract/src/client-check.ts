/**
 * The client check of a kind: what `hub check` (packages/cli/README.md) does for a registry of this kind, an HTTP
 * check and a tool check. Types only: the CLI implements the kit and hands it to `run`, so a kind
 * (ours or a third party's) imports nothing but these types to get `hub check --<id> NAME`.
 * `examples/kind-example` has a small one; docs/writing-a-kind-plugin.md shows a tool check.
 */

export type ClientCheckResult = 'pass' | 'fail' | 'skip';

export interface ClientCheckOutcome {
  result: ClientCheckResult;
  /** One line saying what was checked, or why it failed or was skipped. */
  detail: string;
}

/** An answer of the hub (or of a URL it named), read in full. */
export interface ClientCheckResponse {
  /** The path or URL asked for, as details show it: `/proxy/<name>/<rel>`. */
  what: string;
  status: number;
  /** The Content-Type, '' when absent. */
  type: string;
  body: Buffer;
}

export interface ClientToolRun {
  stdout: string;
  stderr: string;
}

/**
 * What `hub check` gives a kind's check: the registry, and helpers that fail the check with a message
 * naming the request (`fail` throws; `attempt` turns the throw into a fail outcome).
 */
export interface ClientCheckKit {
  /** The registry's name as in hub.toml. */
  registry: string;
  /** `<hub url>/proxy/<name>` without a trailing slash: what a client is configured with. */
  proxyBase: string;
  /** The token hub check was given, for a client tool's configuration; undefined when none. */
  token: string | undefined;
  /** The environment to run client tools in. */
  env: NodeJS.ProcessEnv;
  /** GET `rel` below `/proxy/<name>/` (or an absolute URL the hub named), body read in full. */
  get(rel: string, accept?: string): Promise<ClientCheckResponse>;
  /** The answer when it is a 200; fails with its status and the hub's message otherwise. */
  ok200(r: ClientCheckResponse): ClientCheckResponse;
  /** The body as a JSON object; fails when it is not one. */
  jsonOf(r: ClientCheckResponse): Record<string, unknown>;
  /** The answer when its body is gzip data; fails otherwise. */
  gzipped(r: ClientCheckResponse): ClientCheckResponse;
  /** The answer when its body is a ZIP file; fails otherwise. */
  zipped(r: ClientCheckResponse): ClientCheckResponse;
  /** `<root>` when the body is one XML document with that root element (no DOCTYPE); fails otherwise. */
  xmlWithRoot(r: ClientCheckResponse, root: string): string;
  /** "HTTP 404: <the hub's message>" or "HTTP 502: <a snippet>". */
  statusText(r: ClientCheckResponse): string;
  /** The entry names of a tar archive; throws an Error saying what is wrong with it. */
  tarEntries(tar: Buffer): Promise<string[]>;
  /** Runs a client tool: null when it is not installed; fails with its last output lines when it exits non-zero. */
  runTool(
    cmd: string,
    args: readonly string[],
    o: { cwd?: string; env: NodeJS.ProcessEnv },
  ): Promise<ClientToolRun | null>;
  /** A throwaway folder, removed afterwards whatever happens. */
  inTempDir<T>(prefix: string, f: (dir: string) => Promise<T>): Promise<T>;
  /** Runs one check: a returned string is its pass detail; a `fail` or a connection error is a fail outcome. */
  attempt(f: () => Promise<ClientCheckOutcome | string>): Promise<ClientCheckOutcome>;
  /** Fails the check being attempted with this reason. */
  fail(why: string): never;
  /** Text safe to print on a terminal (control characters escaped). */
  printable(text: string): string;
  /** "512 B", "1.5 KiB", "3.0 MiB". */
  size(bytes: number): string;
  /** One percent-encoded path segment. */
  seg(text: string): string;
}

/**
 * A kind's `hub check`: the CLI offers `--<kind id> NAME` and `--<option> <form>` for it, parses the
 * coordinate before anything is sent (with `parse`, or else the kind's coordinate codec; a bad one is bad usage, exit 2), then prints the two outcomes.
 */
export interface ClientCheck<C = { name: string; version: string }> {
  /** The option naming the probe coordinate, without dashes, e.g. `npm-package`. */
  option: string;
  /** The coordinate's form, for help: `name@version`. */
  form: string;
  /** The coordinate used when the option is not given. */
  fallback: string;
  /** What the checks do, for `hub check --help`: lines such as `http: ...` and `tool: ...`, up to 80 characters. */
  help: readonly string[];
  /**
   * The coordinate, or what it should look like ("a provider such as hashicorp/null@3.2.2/linux_amd64").
   * Absent: the kind's own coordinate codec parses it, and it must name a version (`{ name, version }`).
   */
  parse?(text: string): C | string;
  run(kit: ClientCheckKit, coordinate: C): Promise<{ http: ClientCheckOutcome; tool: ClientCheckOutcome }>;
}
