/**
 * `hub init`: find the upstreams this machine's package managers already use and write a hub.toml
 * that proxies them. Nothing here knows a registry host: every URL comes from the user's own
 * configuration, and whatever cannot be found (or whose tool is not installed) is left out.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';

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

/** Runs a command and returns its stdout, or null when it is missing, fails or times out. */
export type RunCommand = (cmd: string, args: string[]) => Promise<string | null>;

const defaultRun: RunCommand = (cmd, args) =>
  new Promise((resolvePromise) => {
    execFile(cmd, args, { timeout: 5000, windowsHide: true, maxBuffer: 1024 * 1024 }, (err, stdout) => {
      resolvePromise(err ? null : String(stdout));
    });
  });

type Detector = (run: RunCommand, home: string) => Promise<FoundUpstream | null>;

export async function detectUpstreams(run: RunCommand = defaultRun, home: string = homedir()): Promise<FoundUpstream[]> {
  const detectors: Detector[] = [detectNpm, detectGo, detectCargo, detectMaven, detectGem, detectNuget, detectTerraform];
  // A detector that throws is a bug or an odd machine; init still writes what the others found.
  const results = await Promise.all(detectors.map((d) => d(run, home).catch(() => null)));
  return results.filter((r): r is FoundUpstream => r !== null);
}

function found(type: string, url: string | undefined, source: string): FoundUpstream | null {
  const upstream = url === undefined ? undefined : cleanUrl(url);
  return upstream === undefined ? null : { name: type, type, upstream, source };
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

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

function withoutXmlComments(xml: string): string {
  return xml.replace(/<!--[\s\S]*?-->/g, '');
}

function decodeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

const detectNpm: Detector = async (run) => {
  const out = await run('npm', ['config', 'get', 'registry']);
  return found('npm', out ?? undefined, 'npm config get registry');
};

/** GOPROXY is a list separated by `,` or `|`; `direct` and `off` are not proxies. */
const detectGo: Detector = async (run) => {
  const out = await run('go', ['env', 'GOPROXY']);
  const first = (out ?? '').split(/[,|]/).map((s) => s.trim()).find((s) => /^https?:\/\//i.test(s));
  return found('go', first, 'go env GOPROXY');
};

/**
 * Cargo: the source crates-io is replaced with (`[source.crates-io] replace-with = "x"`,
 * `[source.x] registry = "sparse+..."`), else the first `[registries.*]` with a sparse index.
 * Only sparse indexes: hub proxies the sparse protocol, not git indexes.
 */
const detectCargo: Detector = async (_run, home) => {
  for (const file of ['config.toml', 'config']) {
    const path = join(home, '.cargo', file);
    const text = await readText(path);
    if (text === null) continue;
    const url = cargoSparseIndex(text);
    if (url !== undefined) return found('cargo', url, `~/.cargo/${file}`);
  }
  return null;
};

function cargoSparseIndex(text: string): string | undefined {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const table = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
  const sparse = (v: unknown): string | undefined => (typeof v === 'string' && v.startsWith('sparse+') ? v.slice('sparse+'.length) : undefined);
  const sources = table(doc.source);
  const replacement = table(sources['crates-io'])['replace-with'];
  if (typeof replacement === 'string') {
    const url = sparse(table(sources[replacement]).registry);
    if (url !== undefined) return url;
  }
  for (const reg of Object.values(table(doc.registries))) {
    const url = sparse(table(reg).index);
    if (url !== undefined) return url;
  }
  return undefined;
}

const detectMaven: Detector = async (_run, home) => {
  const xml = await readText(join(home, '.m2', 'settings.xml'));
  if (xml === null) return null;
  const mirror = /<mirror\b[^>]*>([\s\S]*?)<\/mirror>/.exec(withoutXmlComments(xml))?.[1];
  const url = mirror === undefined ? undefined : /<url>\s*([^<]*?)\s*<\/url>/.exec(mirror)?.[1];
  return found('maven', url === undefined ? undefined : decodeXml(url), '~/.m2/settings.xml');
};

/** `gem sources --list` prints a `*** CURRENT SOURCES ***` banner, then one URL per line. */
const detectGem: Detector = async (run) => {
  const out = await run('gem', ['sources', '--list']);
  const first = (out ?? '').split(/\r?\n/).map((l) => l.trim()).find((l) => /^https?:\/\//i.test(l));
  return found('rubygems', first, 'gem sources --list');
};

/** The first package source whose value is a v3 service index (`.../index.json`). */
const detectNuget: Detector = async (_run, home) => {
  const xml = await readText(join(home, '.nuget', 'NuGet', 'NuGet.Config'));
  if (xml === null) return null;
  for (const m of withoutXmlComments(xml).matchAll(/<add\b[^>]*>/g)) {
    const value = /\bvalue\s*=\s*"([^"]*)"/.exec(m[0])?.[1];
    if (value !== undefined && /index\.json$/i.test(decodeXml(value).trim())) return found('nuget', decodeXml(value), '~/.nuget/NuGet/NuGet.Config');
  }
  return null;
};

/**
 * A provider registry the terraform CLI configuration points a host at:
 * `host "<h>" { services = { "providers.v1" = "<base>/v1/providers/" } }`. A `network_mirror` is a
 * different protocol (hub serves one, it does not proxy one), so it is not taken as an upstream.
 */
const detectTerraform: Detector = async (_run, home) => {
  const text = await readText(join(home, '.terraformrc'));
  if (text === null) return null;
  const withoutComments = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*(#|\/\/).*$/gm, '');
  const services = /"providers\.v1"\s*=\s*"([^"]+)"/.exec(withoutComments)?.[1];
  return found('terraform', services?.replace(/\/v1\/providers\/?$/, ''), '~/.terraformrc');
};

// ---------------------------------------------------------------------------------------------
// Rendering hub.toml

export interface InitOptions {
  /** `[server] listen`; default 127.0.0.1:8080. */
  listen?: string;
}

/** TOML basic strings accept JSON's escapes (JSON.stringify never writes `\/`). */
const str = (s: string): string => JSON.stringify(s);

export function renderInitToml(found: readonly FoundUpstream[], opts: InitOptions = {}): string {
  const lines = [
    '# hub.toml, written by `hub init` from this machine\'s package manager settings.',
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
    ...registriesToml(found),
  ];
  return `${lines.join('\n')}\n`;
}

function registriesToml(found: readonly FoundUpstream[]): string[] {
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
    '# upstream_auth = { token_env = "UPSTREAM_TOKEN" }',
    '',
  ]);
}
