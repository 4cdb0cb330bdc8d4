/**
 * `hub init`: ask every loaded kind which upstream this machine's own client already uses, and write a
 * hub.toml that proxies them. Nothing here knows a registry host: every URL comes from the user's own
 * configuration, and whatever cannot be found (or whose tool is not installed) is left out.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { DetectContext, RegistryKind } from '@hub/runtime';
import {
  cargoNetwork,
  npmNetwork,
  pipNetwork,
  proxyForUpstream,
  withoutCredentials,
  type ClientNetwork,
  type MachineFiles,
} from './client-network.js';

export interface FoundUpstream {
  /** The registry name to serve it under (= type). */
  name: string;
  /** The kind id. */
  type: string;
  /** Upstream base URL, without credentials or a trailing slash. */
  upstream: string;
  /** Where it was found, for the comment in hub.toml: a command or a file. */
  source: string;
}

/** The real machine: commands with a timeout, files below the home folder, machine-wide settings files. */
export function machineContext(home: string = homedir()): DetectContext {
  return {
    run: (cmd, args) =>
      new Promise((resolve) => {
        execFile(cmd, args, { timeout: 5000, windowsHide: true, maxBuffer: 1024 * 1024 }, (err, stdout) =>
          resolve(err ? null : String(stdout)),
        );
      }),
    readHomeFile: (...segments) => readFile(join(home, ...segments), 'utf8').catch(() => null),
    readSystemFile: (path) => readFile(path, 'utf8').catch(() => null),
  };
}

export async function detectUpstreams(
  kinds: Iterable<RegistryKind>,
  ctx: DetectContext = machineContext(),
): Promise<FoundUpstream[]> {
  const asked = [...kinds].filter((k) => k.detectUpstream);
  // A detector that throws is a bug or an odd machine; init still writes what the others found.
  const answers = await Promise.all(asked.map((k) => k.detectUpstream!(ctx).catch(() => null)));
  return asked.flatMap((k, i) => {
    const upstream = answers[i] && cleanUrl(answers[i].upstream);
    return upstream ? [{ name: k.id, type: k.id, upstream, source: answers[i]!.source }] : [];
  });
}

/**
 * Keeps only http(s) URLs, and drops any user:password in them: credentials belong in
 * upstream_auth (ideally as token_env), never in a generated file.
 */
function cleanUrl(raw: string): string | undefined {
  const text = raw.trim();
  if (!/^https?:\/\//i.test(text) || !URL.canParse(text)) return undefined;
  const url = new URL(text);
  url.username = '';
  url.password = '';
  return url.href.replace(/\/+$/, '');
}

export interface InitOptions {
  /** `[server] listen`; default 127.0.0.1:8080. */
  listen?: string;
  /** Each kind's client network settings (proxy, CA), by kind id: npm's for npm, pip's for pypi, cargo's for cargo. */
  networks?: Readonly<Record<string, ClientNetwork>>;
}

/** The network settings of the clients whose registries init writes (decision 0048). */
export function clientNetworks(m: MachineFiles): Record<string, ClientNetwork> {
  return { npm: npmNetwork(m), pypi: pipNetwork(m), cargo: cargoNetwork(m) };
}

/** TOML basic strings accept JSON's escapes (JSON.stringify never writes `\/`). */
const str = (s: string): string => JSON.stringify(s);

export function renderInitToml(found: readonly FoundUpstream[], opts: InitOptions = {}): string {
  const lines = [
    "# hub.toml, written by `hub init` from this machine's package manager settings.",
    '# Every key and its default: docs/config.md. Unknown keys are errors; secrets can be',
    '# given as <key>_env = "ENV_VAR_NAME" instead of in this file.',
    '',
    '[server]',
    `listen = ${str(opts.listen ?? '127.0.0.1:8080')}`,
    '# public_url = "https://hub.internal.example"   # base for rewritten URLs; unset: only localhost / 127.0.0.1 / [::1] (or allowed_hosts)',
    '# trust_proxy = false                            # honour X-Forwarded-* only behind your own proxy',
    '# trusted_proxies = ["127.0.0.0/8", "::1"]       # with trust_proxy: the proxies believed (default: loopback)',
    '# tls_cert = "cert.pem"                          # HTTPS: go sends .netrc only over https, terraform needs it',
    '# tls_key = "key.pem"',
    ...serverNetworkToml(found, opts.networks ?? {}),
    '',
    '[database]',
    'client = "sqlite"                                # or "mysql" with url_env = "HUB_MYSQL_URL"',
    'filename = "./data/hub.db"                       # relative to this file',
    '',
    '[storage]',
    'kind = "fs"                                      # or "s3" with bucket, endpoint, region, ...',
    'path = "./data/blobs"                            # relative to this file',
    '',
    '[auth]',
    '# Permissions for requests without a token. Empty: every download needs a token.',
    '# ["source:read"] lets anyone who can reach hub download.',
    'anonymous = []',
    '# admin_token_sha256 = "<64 hex digits>"         # or set HUB_ADMIN_TOKEN (32+ characters); with neither, the first start prints one',
    '',
    ...registriesToml(found, opts.networks ?? {}),
  ];
  return `${lines.join('\n')}\n`;
}

/** npm's noproxy list (the only client that has one) for the registries that got a proxy. */
function serverNetworkToml(
  found: readonly FoundUpstream[],
  networks: Readonly<Record<string, ClientNetwork>>,
): string[] {
  const proxied = found.filter((f) => networks[f.type] && proxyForUpstream(networks[f.type]!, f.upstream));
  const noProxy = [...new Set(proxied.flatMap((f) => networks[f.type]!.noProxy ?? []))];
  return [
    '# upstream_proxy = "http://proxy.internal:3128"  # forward proxy for every upstream; unset: HTTPS_PROXY / HTTP_PROXY / NO_PROXY',
    ...(noProxy.length ? [`upstream_no_proxy = [${noProxy.map(str).join(', ')}]  # from npm's noproxy`] : []),
    '# ca_file = "company-ca.pem"                     # extra CAs for upstream TLS, added to Node\'s defaults',
  ];
}

/** A registry's proxy and CA from its client's settings; a proxy URL with credentials is named by a variable, never written. */
function registryNetworkToml(f: FoundUpstream, n: ClientNetwork | undefined): string[] {
  if (!n) return [];
  const out: string[] = [];
  const proxy = proxyForUpstream(n, f.upstream);
  if (proxy) {
    const { url, hadCredentials } = withoutCredentials(proxy);
    const variable = `HUB_${f.name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_PROXY`;
    if (hadCredentials)
      out.push(
        `# the proxy in ${n.sources.join(', ')} (${url}) carries a user and password: set ${variable} to that whole URL`,
        `proxy_env = ${str(variable)}`,
      );
    else out.push(`proxy = ${str(url)}  # from ${n.sources.join(', ')}`);
  }
  if (n.caFile) out.push(`ca_file = ${str(n.caFile)}  # extra CAs, from ${n.sources.join(', ')}`);
  if (n.strictSslOff)
    out.push(
      '# npm has strict-ssl=false: hub verifies upstream certificates anyway; set ca_file to the CA your network signs with (decision 0048)',
    );
  return out;
}

function registriesToml(found: readonly FoundUpstream[], networks: Readonly<Record<string, ClientNetwork>>): string[] {
  if (found.length === 0) {
    return [
      '# No package manager configuration was found. Add one table per registry:',
      '# [[registries]]',
      '# name = "npm"                                 # served at /proxy/npm/',
      '# type = "npm"',
      '# mode = "proxy"                               # proxy | hybrid | local',
      '# upstream = "https://<upstream base>"',
    ];
  }
  return found.flatMap((f) => [
    `# from ${f.source}`,
    '[[registries]]',
    `name = ${str(f.name)}  # served at /proxy/${f.name}/`,
    `type = ${str(f.type)}`,
    'mode = "proxy"                                   # proxy | hybrid | local',
    `upstream = ${str(f.upstream)}`,
    ...registryNetworkToml(f, networks[f.type]),
    '# upstream_auth = { token_env = "UPSTREAM_TOKEN" }',
    '',
  ]);
}
