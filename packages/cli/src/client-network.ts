/**
 * The network settings this machine's package managers already use: npm's `proxy`, `https-proxy`, `noproxy`,
 * `cafile` and `strict-ssl`, pip's `proxy` and `cert`, cargo's `http.proxy` and `http.cainfo`. The built-in
 * default and `hub init` carry them over, so hub reaches the upstream the way the user's own client does
 * (docs/decisions/0048-client-network-settings.md). Files are read directly (no `npm config` process per start).
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';

export interface ClientNetwork {
  /** The tool's proxy for https requests (its http proxy when it has only one). */
  httpsProxy?: string;
  httpProxy?: string;
  /** Hosts the tool reaches directly. */
  noProxy?: string[];
  /** Extra CA bundle, absolute. */
  caFile?: string;
  /** npm's strict-ssl=false: certificate checks are off in npm. hub never copies that (decision 0048). */
  strictSslOff?: boolean;
  /** Where the settings were found, for notes and comments (`~/.npmrc`, `PIP_PROXY`). */
  sources: string[];
}

export interface MachineFiles {
  env: NodeJS.ProcessEnv;
  home: string;
  cwd: string;
  /** A file's text, null when it cannot be read. */
  read?(file: string): string | null;
}

const readText = (file: string): string | null => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};

/** `key = value` lines by section ('' before any section); `;`/`#` comments; quotes and `${VAR}` as npm reads them. */
export function parseIni(text: string, env: NodeJS.ProcessEnv): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>([['', new Map()]]);
  let section = out.get('')!;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';') || line.startsWith('#')) continue;
    const head = /^\[(.+)\]$/.exec(line);
    if (head) {
      const name = head[1]!.trim().toLowerCase();
      if (!out.has(name)) out.set(name, new Map());
      section = out.get(name)!;
      continue;
    }
    const m = /^([^=:]+?)\s*[=:]\s*(.*)$/.exec(line);
    if (!m) continue;
    let value = m[2]!.trim();
    if (/^(".*"|'.*')$/.test(value)) value = value.slice(1, -1);
    value = value.replace(/\$\{([^}?]+)\??\}/g, (_, name: string) => env[name] ?? '');
    section.set(m[1]!.trim().toLowerCase(), value);
  }
  return out;
}

/** `~/x` and paths relative to the settings file become absolute. */
function absolutePath(value: string, base: string, home: string): string {
  if (value.startsWith('~/')) return join(home, value.slice(2));
  return isAbsolute(value) ? value : resolve(base, value);
}

function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const lower = name.toLowerCase();
  const key = Object.keys(env).find((k) => k.toLowerCase() === lower);
  return key === undefined ? undefined : env[key];
}

/**
 * npm's settings, highest first: `npm_config_*` (what `npm start` exports, or the user's own), the project's
 * `.npmrc`, the user's (`npm_config_userconfig` or ~/.npmrc), the global one (`npm_config_globalconfig` or
 * `<prefix>/etc/npmrc`). npm exports `strict-ssl=false` to scripts as an empty `npm_config_strict_ssl`.
 */
export function npmNetwork(m: MachineFiles): ClientNetwork {
  const read = m.read ?? readText;
  const prefix =
    envValue(m.env, 'npm_config_prefix') || envValue(m.env, 'PREFIX') || dirname(dirname(process.execPath));
  const user = resolve(m.cwd, envValue(m.env, 'npm_config_userconfig') || join(m.home, '.npmrc'));
  const project = resolve(m.cwd, '.npmrc');
  const files = [
    // In the home folder the project's .npmrc is the user's (npm reads it once, as the user's).
    ...(project === user ? [] : [{ file: project, label: './.npmrc' }]),
    { file: user, label: '~/.npmrc' },
    { file: envValue(m.env, 'npm_config_globalconfig') || join(prefix, 'etc', 'npmrc'), label: 'the global npmrc' },
  ].map((f) => ({ ...f, values: parseIni(read(f.file) ?? '', m.env).get('')! }));
  const sources = new Set<string>();
  const get = (key: string): { value: string; base: string } | undefined => {
    const envName = `npm_config_${key.replace(/-/g, '_')}`;
    const fromEnv = envValue(m.env, envName);
    if (fromEnv !== undefined) {
      // npm exports some settings empty (noproxy, say): they still win, but are not worth naming.
      if (fromEnv.trim() !== '' || key === 'strict-ssl') sources.add(envName);
      return { value: fromEnv, base: m.cwd };
    }
    for (const f of files) {
      const value = f.values.get(key);
      if (value !== undefined) {
        sources.add(f.label);
        return { value, base: dirname(f.file) };
      }
    }
    return undefined;
  };
  const nonEmpty = (v: { value: string } | undefined): string | undefined =>
    v?.value.trim() ? v.value.trim() : undefined;
  const httpProxy = nonEmpty(get('proxy'));
  const httpsProxy = nonEmpty(get('https-proxy')) ?? httpProxy;
  const noProxy = nonEmpty(get('noproxy'));
  const cafile = get('cafile');
  const strict = get('strict-ssl');
  return {
    ...(httpProxy ? { httpProxy } : {}),
    ...(httpsProxy ? { httpsProxy } : {}),
    ...(noProxy ? { noProxy: noProxy.split(/[,\s]+/).filter(Boolean) } : {}),
    ...(nonEmpty(cafile) ? { caFile: absolutePath(cafile!.value.trim(), cafile!.base, m.home) } : {}),
    ...(strict !== undefined && (strict.value.trim() === '' || strict.value.trim().toLowerCase() === 'false')
      ? { strictSslOff: true }
      : {}),
    sources: [...sources],
  };
}

/** pip's `proxy` (one for http and https) and `cert`: PIP_PROXY / PIP_CERT, then the `[global]` section of its config files, highest first. */
export function pipNetwork(m: MachineFiles): ClientNetwork {
  const read = m.read ?? readText;
  const xdg = m.env.XDG_CONFIG_HOME || join(m.home, '.config');
  const files = [
    m.env.PIP_CONFIG_FILE,
    m.env.VIRTUAL_ENV ? join(m.env.VIRTUAL_ENV, 'pip.conf') : undefined,
    join(xdg, 'pip', 'pip.conf'),
    join(m.home, '.pip', 'pip.conf'),
    '/etc/pip.conf',
    '/etc/xdg/pip/pip.conf',
  ].filter((f): f is string => !!f);
  const sources = new Set<string>();
  const get = (key: string, envName: string): { value: string; base: string } | undefined => {
    const fromEnv = m.env[envName]?.trim();
    if (fromEnv) {
      sources.add(envName);
      return { value: fromEnv, base: m.cwd };
    }
    for (const file of files) {
      const value = parseIni(read(file) ?? '', m.env)
        .get('global')
        ?.get(key)
        ?.trim();
      if (value) {
        sources.add(file.startsWith(m.home) ? `~${file.slice(m.home.length)}` : file);
        return { value, base: dirname(file) };
      }
    }
    return undefined;
  };
  const proxy = get('proxy', 'PIP_PROXY');
  const cert = get('cert', 'PIP_CERT');
  const url = proxy && withScheme(proxy.value);
  return {
    ...(url ? { httpProxy: url, httpsProxy: url } : {}),
    ...(cert ? { caFile: absolutePath(cert.value, cert.base, m.home) } : {}),
    sources: [...sources],
  };
}

/** cargo's `[http] proxy` and `cainfo`: CARGO_HTTP_PROXY / CARGO_HTTP_CAINFO, then `$CARGO_HOME/config.toml` (or `config`). */
export function cargoNetwork(m: MachineFiles): ClientNetwork {
  const read = m.read ?? readText;
  const cargoHome = m.env.CARGO_HOME || join(m.home, '.cargo');
  let http: { proxy?: unknown; cainfo?: unknown } = {};
  let source: string | undefined;
  for (const name of ['config.toml', 'config']) {
    const text = read(join(cargoHome, name));
    if (text === null) continue;
    try {
      const doc = parseToml(text) as { http?: { proxy?: unknown; cainfo?: unknown } };
      http = doc.http ?? {};
      source = `${m.env.CARGO_HOME ? '$CARGO_HOME' : '~/.cargo'}/${name}`;
    } catch {
      // cargo would refuse the file too; nothing to carry over
    }
    break;
  }
  const sources = new Set<string>();
  const pick = (key: 'proxy' | 'cainfo', envName: string): string | undefined => {
    const fromEnv = m.env[envName]?.trim();
    if (fromEnv) return (sources.add(envName), fromEnv);
    const value = http[key];
    if (typeof value === 'string' && value.trim()) return (sources.add(source!), value.trim());
    return undefined;
  };
  const proxy = pick('proxy', 'CARGO_HTTP_PROXY');
  const cainfo = pick('cainfo', 'CARGO_HTTP_CAINFO');
  const url = proxy && withScheme(proxy);
  // cargo reads a relative cainfo against the folder above `.cargo`.
  return {
    ...(url ? { httpProxy: url, httpsProxy: url } : {}),
    ...(cainfo ? { caFile: absolutePath(cainfo, dirname(cargoHome), m.home) } : {}),
    sources: [...sources],
  };
}

/** pip and cargo (libcurl) accept `host:port`: http:// is what they mean. */
function withScheme(proxy: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

/** The proxy a registry at `upstream` needs from these settings: the https one for an https upstream. */
export function proxyForUpstream(n: ClientNetwork, upstream: string): string | undefined {
  return /^https:/i.test(upstream) ? n.httpsProxy : n.httpProxy;
}

/** The URL as it may be written to a file or a terminal: no user or password. */
export function withoutCredentials(url: string): { url: string; hadCredentials: boolean } {
  try {
    const u = new URL(url);
    const hadCredentials = u.username !== '' || u.password !== '';
    u.username = '';
    u.password = '';
    return { url: u.href.replace(/\/$/, ''), hadCredentials };
  } catch {
    return { url: '<invalid URL>', hadCredentials: false };
  }
}
