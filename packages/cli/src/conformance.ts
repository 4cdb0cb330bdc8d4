/**
 * The client conformance checks of SPEC 4.3: per registry an HTTP check and a tool check. The tool
 * check runs the real client where one is named (cargo, go) and skips when it is not installed;
 * elsewhere it makes the request the client makes (the artifact, the pom, the download document).
 * Nothing here loads the runtime; content is checked by hand (gzip and ZIP magic, XML root element,
 * POSIX tar headers, JSON members).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { RequestError, seg, type AdminClient } from './client.js';
import { printable } from './output.js';

export type Outcome = { result: 'pass' | 'fail' | 'skip'; detail: string };

/** What a check needs: the client, the registry's base path, the environment for tools. */
export interface ProbeContext {
  api: AdminClient;
  /** The registry's name as in hub.toml. */
  name: string;
  env: NodeJS.ProcessEnv;
}

/** One registry kind: its options, its probe coordinate and its two checks. */
export interface KindCheck<C = any> {
  kind: string;
  /** The option naming the coordinate, e.g. npm-package. */
  coordOption: string;
  /** The coordinate's form, for help and errors. */
  form: string;
  /** The coordinate used when the option is not given. */
  fallback: string;
  /** The coordinate, or a string saying what is wrong with it. */
  parse(value: string): C | string;
  run(c: ProbeContext, coord: C): Promise<{ http: Outcome; tool: Outcome }>;
}

/** Thrown inside a check: the check fails with this message. */
class Failed extends Error {}
const fail = (why: string): never => {
  throw new Failed(why);
};

/** Runs a check: its detail on success, a fail outcome with the reason on a Failed or a connection error. */
async function attempt(f: () => Promise<Outcome | string>): Promise<Outcome> {
  try {
    const r = await f();
    return typeof r === 'string' ? { result: 'pass', detail: r } : r;
  } catch (e) {
    if (e instanceof Failed || e instanceof RequestError) return { result: 'fail', detail: e.message };
    return { result: 'fail', detail: `unexpected error: ${(e as Error)?.message ?? String(e)}` };
  }
}

interface Got {
  /** The path or URL asked for, as shown in details. */
  what: string;
  status: number;
  type: string;
  body: Buffer;
}

/** GET below /proxy/<name>/ (or an absolute URL), body read in full. */
async function get(c: ProbeContext, rel: string, accept = '*/*'): Promise<Got> {
  const absolute = /^https?:\/\//i.test(rel);
  const what = absolute ? rel : `/proxy/${seg(c.name)}/${rel}`;
  const res = await c.api.get(what, { accept });
  let body: Buffer;
  try {
    body = Buffer.from(await res.arrayBuffer());
  } catch (e) {
    const err = e as Error;
    return fail(`GET ${what}: the answer was cut off (${err.name === 'TimeoutError' ? 'timed out' : err.message})`);
  }
  return { what, status: res.status, type: res.headers.get('content-type') ?? '', body };
}

/** "HTTP 404: <the hub's message>" or "HTTP 502: <a snippet>". */
function statusText(g: Got): string {
  const text = g.body.subarray(0, 2048).toString('utf8');
  let message: string | undefined;
  try {
    const m = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof m === 'string') message = m;
  } catch {
    message = text.replace(/\s+/g, ' ').trim().slice(0, 160) || undefined;
  }
  return printable(`HTTP ${g.status}${message ? `: ${message}` : ''}`);
}

function ok200(g: Got): Got {
  if (g.status !== 200) fail(`GET ${g.what}: ${statusText(g)}`);
  return g;
}

function jsonOf(g: Got): Record<string, unknown> {
  try {
    const v = JSON.parse(g.body.toString('utf8')) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // below
  }
  return fail(`GET ${g.what}: 200 but not a JSON object (${describeBytes(g)})`);
}

/** What a body that was not what it should be looks like: content type and first bytes. */
function describeBytes(g: Got): string {
  const head = g.body.subarray(0, 40).toString('latin1').replace(/[^\x20-\x7e]/g, '.');
  return printable(`${g.type || 'no content type'}, ${g.body.length} bytes${g.body.length ? `, starting "${head}"` : ''}`);
}

export const isGzip = (b: Buffer): boolean => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
export const isZip = (b: Buffer): boolean => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;

function gzipped(g: Got): Got {
  if (!isGzip(g.body)) fail(`GET ${g.what}: 200 but not gzip data (${describeBytes(g)})`);
  return g;
}

function zipped(g: Got): Got {
  if (!isZip(g.body)) fail(`GET ${g.what}: 200 but not a ZIP file (${describeBytes(g)})`);
  return g;
}

/**
 * The name of an XML document's root element, or undefined when the text does not start like XML
 * (after a BOM, the declaration, comments, processing instructions and a DOCTYPE) or the root is
 * never closed.
 */
export function xmlRoot(text: string): string | undefined {
  let s = text.replace(/^\uFEFF/, '');
  for (;;) {
    s = s.replace(/^\s+/, '');
    const skip = /^(<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE(?:[^[>]|\[[\s\S]*?\])*>)/i.exec(s);
    if (!skip) break;
    s = s.slice(skip[0].length);
  }
  const m = /^<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)[\s/>]/.exec(s);
  if (!m) return undefined;
  const qname = `${m[1] ?? ''}${m[2]}`;
  // After the root's end tag (or a self-closed root) only comments, processing instructions and space.
  const end = s.lastIndexOf(`</${qname}`);
  const tail = end >= 0 ? /^\s*>([\s\S]*)$/.exec(s.slice(end + qname.length + 2))?.[1] : /^<[^>]*\/>([\s\S]*)$/.exec(s)?.[1];
  if (tail === undefined || tail.replace(/<!--[\s\S]*?-->|<\?[\s\S]*?\?>/g, '').trim()) return undefined;
  return m[2];
}

function xmlWithRoot(g: Got, root: string): string {
  const found = xmlRoot(g.body.toString('utf8'));
  if (found === undefined) fail(`GET ${g.what}: 200 but not an XML document (${describeBytes(g)})`);
  if (found !== root) fail(`GET ${g.what}: the root element is <${found}>, not <${root}>`);
  return `<${root}>`;
}

/**
 * The entry names of a POSIX (ustar or GNU) tar archive, read by the runtime's tar reader; rejects with
 * an Error saying what is wrong (a bad checksum, a pre-POSIX header, a cut-off archive).
 */
export async function tarEntries(tar: Buffer): Promise<string[]> {
  // Imported here: the runtime is heavy, and every other `hub` command starts without it.
  const { tarEntryNames } = await import('@hub/runtime');
  return tarEntryNames(Readable.from([tar]), { maxBytes: tar.length, maxEntries: 100_000 }, { posixOnly: true });
}

const size = (n: number): string => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`);
const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+_-]{0,127}$/;

/** "name@version" split at the last @ (npm scopes start with one). */
function atVersion(v: string): [string, string] | undefined {
  const i = v.lastIndexOf('@');
  if (i <= 0 || i === v.length - 1) return undefined;
  return [v.slice(0, i), v.slice(i + 1)];
}

// ---- tools ----------------------------------------------------------------------------------

interface ToolRun {
  stdout: string;
  stderr: string;
}

const TOOL_TIMEOUT_MS = 300_000;

/** Runs a client tool; ENOENT resolves to null (not installed), any other failure rejects with its stderr. */
function runTool(cmd: string, args: string[], o: { cwd?: string; env: NodeJS.ProcessEnv }): Promise<ToolRun | null> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd: o.cwd, env: o.env, timeout: TOOL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (!err) return resolve({ stdout, stderr });
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return resolve(null);
      const why = err.killed ? `timed out after ${TOOL_TIMEOUT_MS / 1000}s` : `exit ${String(err.code ?? err.signal)}`;
      reject(new Failed(`${cmd} ${args.join(' ')}: ${why}: ${lastLines(`${stdout}\n${stderr}`)}`));
    });
  });
}

/** The last few meaningful lines of a tool's output, on one line. */
function lastLines(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return printable(lines.slice(-4).join(' | ').slice(-600)) || 'no output';
}

/** A throwaway folder for a tool run, removed afterwards whatever happens. */
async function inTempDir<T>(prefix: string, f: (dir: string) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  try {
    return await f(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const proxyBase = (c: ProbeContext) => `${c.api.url}/proxy/${seg(c.name)}`;

// ---- kinds ----------------------------------------------------------------------------------

/** An npm name: lower-case words, optionally @scope/; kept as the path spells it. */
const NPM_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/i;

const npmCheck: KindCheck<{ pkg: string; version: string }> = {
  kind: 'npm',
  coordOption: 'npm-package',
  form: 'name@version',
  fallback: 'lodash@4.17.21',
  parse(v) {
    const p = atVersion(v);
    if (!p || !NPM_NAME.test(p[0]) || !VERSION.test(p[1])) return 'an npm package and version such as lodash@4.17.21 or @scope/name@1.0.0';
    return { pkg: p[0], version: p[1] };
  },
  async run(c, { pkg, version }) {
    const http = await attempt(async () => {
      const latest = gzipped(ok200(await get(c, pkg)));
      const pinned = gzipped(ok200(await get(c, `${pkg}/${seg(version)}/tarball`)));
      return `GET ${latest.what} (Accept */*) and ${pinned.what}: 200, gzip (${size(latest.body.length)}, ${size(pinned.body.length)})`;
    });
    // What npm install does: the abbreviated packument, then the tarball it names, checked against dist.integrity.
    const tool = await attempt(async () => {
      const doc = jsonOf(ok200(await get(c, pkg, 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*')));
      const dist = ((doc.versions as Record<string, { dist?: { tarball?: unknown; integrity?: unknown; shasum?: unknown } }> | undefined)?.[version] ?? {}).dist;
      if (!dist || typeof dist.tarball !== 'string') return fail(`the packument of ${pkg} has no version ${version} with a dist.tarball`);
      if (!/^https?:\/\//i.test(dist.tarball)) return fail(`the packument of ${pkg} gives ${version} a dist.tarball that is not an http(s) URL: ${printable(dist.tarball.slice(0, 200))}`);
      const tgz = gzipped(ok200(await get(c, dist.tarball)));
      const sri = typeof dist.integrity === 'string' ? /^sha512-([A-Za-z0-9+/=]+)$/.exec(dist.integrity.split(/\s+/).find((x) => x.startsWith('sha512-')) ?? '') : null;
      if (sri) {
        if (createHash('sha512').update(tgz.body).digest('base64') !== sri[1]) fail(`${printable(dist.tarball)}: the tarball does not match dist.integrity`);
        return `packument -> ${printable(dist.tarball)}: gzip, sha512 matches dist.integrity`;
      }
      if (typeof dist.shasum === 'string') {
        if (createHash('sha1').update(tgz.body).digest('hex') !== dist.shasum.toLowerCase()) fail(`${printable(dist.tarball)}: the tarball does not match dist.shasum`);
        return `packument -> ${printable(dist.tarball)}: gzip, sha1 matches dist.shasum`;
      }
      return `packument -> ${printable(dist.tarball)}: gzip (the packument gives no digest)`;
    });
    return { http, tool };
  },
};

const CRATE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

const cargoCheck: KindCheck<{ crate: string; version: string }> = {
  kind: 'cargo',
  coordOption: 'cargo-crate',
  form: 'name@version',
  fallback: 'cfg-if@1.0.0',
  parse(v) {
    const p = atVersion(v);
    if (!p || !CRATE.test(p[0]) || !VERSION.test(p[1])) return 'a crate and version such as cfg-if@1.0.0';
    return { crate: p[0], version: p[1] };
  },
  async run(c, { crate, version }) {
    const http = await attempt(async () => {
      const g = ok200(await get(c, 'registry/config.json', 'application/json'));
      const dl = jsonOf(g).dl;
      if (typeof dl !== 'string' || !dl) return fail(`GET ${g.what}: no "dl" in the index configuration`);
      return `GET ${g.what}: 200, dl ${printable(dl)}`;
    });
    const tool = await attempt(async () => {
      const probe = await runTool('cargo', ['--version'], { env: c.env }).catch((e: Error) => e);
      if (!probe) return { result: 'skip', detail: 'cargo not installed' };
      if (probe instanceof Error) return { result: 'skip', detail: `cargo is not usable: ${probe.message}` };
      const m = /^cargo (\d+)\.(\d+)/.exec(probe.stdout);
      if (!m || Number(m[1]) < 1 || (Number(m[1]) === 1 && Number(m[2]) < 74)) return { result: 'skip', detail: `${printable(probe.stdout.trim())} is too old (sparse registries with tokens need 1.74)` };
      return inTempDir('hub-check-cargo-', async (dir) => {
        const home = path.join(dir, 'cargo-home');
        fs.mkdirSync(home);
        fs.mkdirSync(path.join(dir, 'app', 'src'), { recursive: true });
        const index = `sparse+${proxyBase(c)}/registry/`;
        fs.writeFileSync(path.join(home, 'config.toml'), `[registries.hub]\nindex = ${JSON.stringify(index)}\n\n[registry]\nglobal-credential-providers = ["cargo:token"]\n\n[net]\nretry = 0\n`);
        fs.writeFileSync(path.join(dir, 'app', 'Cargo.toml'), `[package]\nname = "hub-check"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\n${JSON.stringify(crate)} = { version = ${JSON.stringify(`=${version}`)}, registry = "hub" }\n`);
        fs.writeFileSync(path.join(dir, 'app', 'src', 'lib.rs'), '');
        const env = { ...c.env, CARGO_HOME: home, CARGO_TARGET_DIR: path.join(dir, 'target'), CARGO_TERM_COLOR: 'never', CARGO_HTTP_TIMEOUT: '60', RUSTUP_AUTO_INSTALL: '0', CARGO_REGISTRIES_HUB_TOKEN: c.api.token ?? '' };
        if (!c.api.token) delete (env as NodeJS.ProcessEnv).CARGO_REGISTRIES_HUB_TOKEN;
        await runTool('cargo', ['fetch'], { cwd: path.join(dir, 'app'), env });
        const lock = fs.readFileSync(path.join(dir, 'app', 'Cargo.lock'), 'utf8');
        if (!lock.includes(`name = "${crate}"\nversion = "${version}"`)) fail(`cargo fetch ran but Cargo.lock does not hold ${crate} ${version}`);
        return `cargo fetch resolved ${crate} ${version} through ${printable(index)}`;
      });
    });
    return { http, tool };
  },
};

/** Go module path escaping: an upper-case letter becomes ! and the letter in lower case. */
const goEscape = (p: string) => p.replace(/[A-Z]/g, (ch) => `!${ch.toLowerCase()}`);
const MODULE = /^[A-Za-z0-9][A-Za-z0-9._~+-]*(\/[A-Za-z0-9._~+-]+)*$/;

const goCheck: KindCheck<{ module: string; version: string }> = {
  kind: 'go',
  coordOption: 'go-module',
  form: 'path@version',
  fallback: 'rsc.io/quote@v1.5.2',
  parse(v) {
    const p = atVersion(v);
    if (!p || !MODULE.test(p[0]) || p[0].split('/').some((s) => s === '.' || s === '..') || !/^v\d+\.\d+\.\d+[0-9A-Za-z.+-]*$/.test(p[1])) return 'a module path and version such as rsc.io/quote@v1.5.2';
    return { module: p[0], version: p[1] };
  },
  async run(c, { module, version }) {
    const http = await attempt(async () => {
      const g = ok200(await get(c, `${goEscape(module)}/@latest`, 'application/json'));
      const v = jsonOf(g).Version;
      if (typeof v !== 'string' || !v) return fail(`GET ${g.what}: no "Version" in the answer`);
      return `GET ${g.what}: 200, Version ${printable(v)}`;
    });
    const tool = await attempt(async () => {
      const probe = await runTool('go', ['version'], { env: c.env }).catch((e: Error) => e);
      if (!probe) return { result: 'skip', detail: 'go not installed' };
      if (probe instanceof Error) return { result: 'skip', detail: `go is not usable: ${probe.message}` };
      return inTempDir('hub-check-go-', async (dir) => {
        const base = new URL(proxyBase(c));
        // go sends credentials only over https, from .netrc.
        if (c.api.token && base.protocol === 'https:') fs.writeFileSync(path.join(dir, '.netrc'), `machine ${base.hostname} login hub password ${c.api.token}\n`, { mode: 0o600 });
        fs.writeFileSync(path.join(dir, 'go.mod'), 'module hubcheck\n\ngo 1.16\n');
        const env = {
          ...c.env,
          HOME: dir,
          NETRC: path.join(dir, '.netrc'),
          GOENV: 'off',
          GOPATH: path.join(dir, 'gopath'),
          GOMODCACHE: path.join(dir, 'modcache'),
          GOCACHE: path.join(dir, 'gocache'),
          GOPROXY: proxyBase(c),
          GOFLAGS: '-mod=mod -modcacherw',
          GOSUMDB: 'off',
          GONOSUMDB: '*',
          GONOPROXY: '',
          GOPRIVATE: '',
          GOTOOLCHAIN: 'local',
        };
        const out = await runTool('go', ['mod', 'download', '-json', `${module}@${version}`], { cwd: dir, env }).catch((e: Error) => {
          const m = /"Error":\s*"((?:[^"\\]|\\.)*)"/.exec(e.message);
          const hint = /401|403/.test(e.message) && !c.api.token ? ' (no token given)' : /401/.test(e.message) && base.protocol === 'http:' ? ' (go sends credentials only over https)' : '';
          return fail(`go mod download ${module}@${version}: ${m ? printable(JSON.parse(`"${m[1]}"`) as string) : e.message}${hint}`);
        });
        const r = JSON.parse(out!.stdout) as { Error?: string; Zip?: string; Version?: string };
        if (r.Error || !r.Zip) fail(`go mod download ${module}@${version}: ${printable(r.Error ?? 'no zip')}`);
        return `go mod download ${module}@${version} with GOPROXY=${printable(proxyBase(c))} only: ok`;
      });
    });
    return { http, tool };
  },
};

const SEGMENT = /^[A-Za-z0-9_.+~@-]+$/;

const githubCheck: KindCheck<{ owner: string; repo: string; tag: string; asset: string }> = {
  kind: 'github',
  coordOption: 'github-asset',
  form: 'owner/repo/tag/asset',
  fallback: 'cli/cli/v2.40.0/gh_2.40.0_linux_amd64.tar.gz',
  parse(v) {
    const parts = v.split('/');
    if (parts.length < 4 || parts.some((p) => !SEGMENT.test(p) || p === '.' || p === '..')) return 'a release asset such as cli/cli/v2.40.0/gh_2.40.0_linux_amd64.tar.gz';
    return { owner: parts[0]!, repo: parts[1]!, tag: parts.slice(2, -1).join('/'), asset: parts.at(-1)! };
  },
  async run(c, { owner, repo, tag, asset }) {
    const http = await attempt(async () => {
      const g = ok200(await get(c, [owner, repo, 'releases', 'download', ...tag.split('/'), asset].map(seg).join('/')));
      if (/\.zip$/i.test(asset)) zipped(g);
      else gzipped(g);
      return `GET ${g.what}: 200, ${/\.zip$/i.test(asset) ? 'ZIP' : 'gzip'} (${size(g.body.length)})`;
    });
    return { http, tool: { result: 'skip', detail: 'release assets have no client tool; the http check downloaded the asset' } };
  },
};

const EXTENSION = /^([A-Za-z0-9][A-Za-z0-9_-]*)\.([A-Za-z0-9][A-Za-z0-9_-]*)@([0-9A-Za-z][0-9A-Za-z.+-]*)$/;

/** openvsx and vscode-marketplace: the same route; any non-5xx passes over HTTP, the tool needs the ZIP. */
function vsixCheck(kind: 'openvsx' | 'vscode-marketplace', fallback: string): KindCheck<{ id: string; version: string }> {
  return {
    kind,
    coordOption: `${kind}-extension`,
    form: 'publisher.extension@version',
    fallback,
    parse(v) {
      const m = EXTENSION.exec(v);
      if (!m) return `an extension and version such as ${fallback}`;
      return { id: `${m[1]}.${m[2]}`, version: m[3]! };
    },
    async run(c, { id, version }) {
      let got: Got | undefined;
      const http = await attempt(async () => {
        got = await get(c, `${seg(id)}/${seg(version)}/vsix`);
        if (got.status >= 500) fail(`GET ${got.what}: ${statusText(got)}`);
        return `GET ${got.what}: ${got.status === 200 ? 'HTTP 200' : statusText(got)}`;
      });
      const tool = await attempt(async () => {
        const g = got ?? (await get(c, `${seg(id)}/${seg(version)}/vsix`));
        if (g.status === 404) return { result: 'skip', detail: `${id}@${version} not found (404), nothing to install` };
        zipped(ok200(g));
        return `${id}@${version}: ZIP (${size(g.body.length)})`;
      });
      return { http, tool };
    },
  };
}

const MAVEN_PART = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

const mavenCheck: KindCheck<{ group: string; artifact: string; version: string }> = {
  kind: 'maven',
  coordOption: 'maven-artifact',
  form: 'group:artifact:version',
  fallback: 'junit:junit:4.13.2',
  parse(v) {
    const parts = v.split(':');
    if (parts.length !== 3 || parts.some((p) => !MAVEN_PART.test(p) || p.includes('..'))) return 'a Maven coordinate such as junit:junit:4.13.2';
    return { group: parts[0]!, artifact: parts[1]!, version: parts[2]! };
  },
  async run(c, { group, artifact, version }) {
    const dir = `maven2/${group.split('.').map(seg).join('/')}/${seg(artifact)}`;
    const http = await attempt(async () => {
      const g = ok200(await get(c, `${dir}/maven-metadata.xml`, 'application/xml, text/xml, */*'));
      return `GET ${g.what}: 200, XML ${xmlWithRoot(g, 'metadata')}`;
    });
    const tool = await attempt(async () => {
      const g = ok200(await get(c, `${dir}/${seg(version)}/${seg(`${artifact}-${version}.pom`)}`, 'application/xml, text/xml, */*'));
      return `GET ${g.what}: 200, XML ${xmlWithRoot(g, 'project')}`;
    });
    return { http, tool };
  },
};

const TF = /^([A-Za-z0-9][A-Za-z0-9_-]*)\/([A-Za-z0-9][A-Za-z0-9_-]*)@([0-9A-Za-z][0-9A-Za-z.+-]*)(?:\/([a-z0-9]+)_([a-z0-9]+))?$/;

const terraformCheck: KindCheck<{ ns: string; type: string; version: string; os: string; arch: string }> = {
  kind: 'terraform',
  coordOption: 'terraform-provider',
  form: 'ns/type@version[/os_arch]',
  fallback: 'hashicorp/null@3.2.2/linux_amd64',
  parse(v) {
    const m = TF.exec(v);
    if (!m) return 'a provider such as hashicorp/null@3.2.2/linux_amd64';
    return { ns: m[1]!, type: m[2]!, version: m[3]!, os: m[4] ?? 'linux', arch: m[5] ?? 'amd64' };
  },
  async run(c, p) {
    const provider = `v1/providers/${seg(p.ns)}/${seg(p.type)}`;
    const http = await attempt(async () => {
      const g = ok200(await get(c, `${provider}/versions`, 'application/json'));
      const versions = jsonOf(g).versions;
      if (!Array.isArray(versions) || !versions.length) return fail(`GET ${g.what}: "versions" is ${Array.isArray(versions) ? 'empty' : 'missing'}`);
      return `GET ${g.what}: 200, ${versions.length} version${versions.length === 1 ? '' : 's'}`;
    });
    const tool = await attempt(async () => {
      const g = await get(c, `${provider}/${seg(p.version)}/download/${seg(p.os)}/${seg(p.arch)}`, 'application/json');
      if (g.status === 404) return { result: 'skip', detail: `${p.ns}/${p.type} ${p.version} for ${p.os}_${p.arch} not found (404)` };
      const url = jsonOf(ok200(g)).download_url;
      if (typeof url !== 'string' || !url) return fail(`GET ${g.what}: no "download_url" in the download document`);
      // hub's download_url is signed: the signature stays out of the output.
      return `GET ${g.what}: 200, download_url ${printable(url.replace(/[?#].*$/s, ''))}`;
    });
    return { http, tool };
  },
};

const GEM = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const rubygemsCheck: KindCheck<{ gem: string; version: string }> = {
  kind: 'rubygems',
  coordOption: 'rubygems-gem',
  form: 'name@version',
  fallback: 'rake@13.2.1',
  parse(v) {
    const p = atVersion(v);
    if (!p || !GEM.test(p[0]) || !VERSION.test(p[1])) return 'a gem and version such as rake@13.2.1';
    return { gem: p[0], version: p[1] };
  },
  async run(c, { gem, version }) {
    const http = await attempt(async () => {
      const g = ok200(await get(c, `api/v1/gems/${seg(gem)}.json`, 'application/json'));
      const name = jsonOf(g).name;
      if (name !== gem) fail(`GET ${g.what}: "name" is ${printable(JSON.stringify(name ?? null))}, not "${gem}"`);
      return `GET ${g.what}: 200, name ${gem}`;
    });
    const tool = await attempt(async () => {
      const g = ok200(await get(c, `gems/${seg(`${gem}-${version}.gem`)}`));
      let names: string[];
      try {
        names = await tarEntries(g.body);
      } catch (e) {
        return fail(`GET ${g.what}: 200 but not a POSIX tar: ${(e as Error).message}`);
      }
      const missing = ['metadata.gz', 'data.tar.gz'].filter((n) => !names.includes(n));
      if (missing.length) fail(`GET ${g.what}: the tar holds no ${missing.join(' or ')} (entries: ${printable(names.join(', ') || 'none')})`);
      return `GET ${g.what}: 200, POSIX tar with metadata.gz and data.tar.gz`;
    });
    return { http, tool };
  },
};

const NUGET_ID = /^\w+([.-]\w+)*$/;

const nugetCheck: KindCheck<{ id: string; version: string }> = {
  kind: 'nuget',
  coordOption: 'nuget-package',
  form: 'id@version',
  fallback: 'newtonsoft.json@13.0.3',
  parse(v) {
    const p = atVersion(v);
    if (!p || !NUGET_ID.test(p[0]) || p[0].length > 100 || !VERSION.test(p[1])) return 'a package id and version such as newtonsoft.json@13.0.3';
    return { id: p[0].toLowerCase(), version: p[1].toLowerCase() };
  },
  async run(c, { id, version }) {
    let index: Record<string, unknown> | undefined;
    const http = await attempt(async () => {
      const g = ok200(await get(c, 'nuget/v3/index.json', 'application/json'));
      index = jsonOf(g);
      if (index.version !== '3.0.0') fail(`GET ${g.what}: "version" is ${printable(JSON.stringify(index.version ?? null))}, not "3.0.0"`);
      const resources = index.resources;
      if (!Array.isArray(resources) || !resources.length) fail(`GET ${g.what}: "resources" is ${Array.isArray(resources) ? 'empty' : 'missing'}`);
      return `GET ${g.what}: 200, version 3.0.0, ${(resources as unknown[]).length} resources`;
    });
    // What a restore does: the flat container the service index names, the version list, the .nupkg.
    const tool = await attempt(async () => {
      if (!index) return fail('no service index to start from (see the http check)');
      const resources = Array.isArray(index.resources) ? (index.resources as Array<Record<string, unknown>>) : [];
      const flat = resources.find((r) => typeof r?.['@type'] === 'string' && r['@type'].startsWith('PackageBaseAddress/3.0.0'))?.['@id'];
      if (typeof flat !== 'string' || !/^https?:\/\//i.test(flat)) return fail('the service index names no PackageBaseAddress/3.0.0 resource');
      const root = flat.replace(/\/*$/, '/');
      const list = jsonOf(ok200(await get(c, `${root}${seg(id)}/index.json`, 'application/json'))).versions;
      if (!Array.isArray(list) || !list.map((x) => String(x).toLowerCase()).includes(version)) fail(`${printable(root)}${id}/index.json does not list ${version}`);
      const g = zipped(ok200(await get(c, `${root}${seg(id)}/${seg(version)}/${seg(`${id}.${version}.nupkg`)}`)));
      return `flat container ${printable(root)}: ${id} lists ${version}; .nupkg is a ZIP (${size(g.body.length)})`;
    });
    return { http, tool };
  },
};

/** Every kind hub check knows, in the order the checks run and print. */
export const KIND_CHECKS: KindCheck[] = [
  npmCheck,
  cargoCheck,
  goCheck,
  githubCheck,
  vsixCheck('openvsx', 'redhat.vscode-yaml@1.15.0'),
  vsixCheck('vscode-marketplace', 'redhat.vscode-yaml@1.15.0'),
  mavenCheck,
  terraformCheck,
  rubygemsCheck,
  nugetCheck,
];
