/**
 * The kit `hub check` hands each kind's client check (packages/cli/README.md): requests to the hub with the body read
 * in full, content checks (gzip and ZIP magic, one XML document and its root element, tar entry names,
 * a JSON object), client tools in a throwaway folder, and outcomes whose failures name the request.
 * Nothing here loads the runtime: kinds see only the ClientCheckKit type.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { ClientCheckKit, ClientCheckOutcome, ClientCheckResponse, ClientToolRun } from '@hub/runtime';
import { SaxesParser } from 'saxes';
import { RequestError, seg, type AdminClient } from './client.js';
import { printable } from './output.js';

/** Thrown inside a check: the check fails with this message. */
class Failed extends Error {}
const fail = (why: string): never => {
  throw new Failed(why);
};

/** Runs a check: its detail on success, a fail outcome with the reason on a Failed or a connection error. */
async function attempt(f: () => Promise<ClientCheckOutcome | string>): Promise<ClientCheckOutcome> {
  try {
    const r = await f();
    return typeof r === 'string' ? { result: 'pass', detail: r } : r;
  } catch (e) {
    if (e instanceof Failed || e instanceof RequestError) return { result: 'fail', detail: e.message };
    return { result: 'fail', detail: `unexpected error: ${(e as Error)?.message ?? String(e)}` };
  }
}

/** "HTTP 404: <the hub's message>" or "HTTP 502: <a snippet>". */
function statusText(g: ClientCheckResponse): string {
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

function ok200(g: ClientCheckResponse): ClientCheckResponse {
  if (g.status !== 200) fail(`GET ${g.what}: ${statusText(g)}`);
  return g;
}

function jsonOf(g: ClientCheckResponse): Record<string, unknown> {
  try {
    const v = JSON.parse(g.body.toString('utf8')) as unknown;
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // below
  }
  return fail(`GET ${g.what}: 200 but not a JSON object (${describeBytes(g)})`);
}

/** What a body that was not what it should be looks like: content type and first bytes. */
function describeBytes(g: ClientCheckResponse): string {
  const head = g.body
    .subarray(0, 40)
    .toString('latin1')
    .replace(/[^\x20-\x7e]/g, '.');
  return printable(
    `${g.type || 'no content type'}, ${g.body.length} bytes${g.body.length ? `, starting "${head}"` : ''}`,
  );
}

const isGzip = (b: Buffer): boolean => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
const isZip = (b: Buffer): boolean => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;

function gzipped(g: ClientCheckResponse): ClientCheckResponse {
  if (!isGzip(g.body)) fail(`GET ${g.what}: 200 but not gzip data (${describeBytes(g)})`);
  return g;
}

function zipped(g: ClientCheckResponse): ClientCheckResponse {
  if (!isZip(g.body)) fail(`GET ${g.what}: 200 but not a ZIP file (${describeBytes(g)})`);
  return g;
}

/** A DOCTYPE in a document hub check reads: refused, so no DTD (entities, external subsets) is ever looked at. */
export class DoctypeRefused extends Error {
  override name = 'DoctypeRefused';
}

/**
 * The local name of the root element of one well-formed XML document (saxes), or undefined when the
 * text is not one (a second root, an unclosed tag, text outside the root). Throws DoctypeRefused on a
 * DOCTYPE. A BOM and space before the document are allowed.
 */
export function xmlRoot(text: string): string | undefined {
  const parser = new SaxesParser();
  let root: string | undefined;
  let wellFormed = true;
  parser.on('error', () => {
    wellFormed = false;
  });
  parser.on('doctype', () => {
    throw new DoctypeRefused('a DOCTYPE, which hub check refuses');
  });
  parser.on('opentag', (tag) => {
    root ??= tag.name.slice(tag.name.indexOf(':') + 1);
  });
  parser.write(text.replace(/^\uFEFF/, '').trimStart()).close();
  return wellFormed ? root : undefined;
}

function xmlWithRoot(g: ClientCheckResponse, root: string): string {
  let found: string | undefined;
  try {
    found = xmlRoot(g.body.toString('utf8'));
  } catch (e) {
    if (e instanceof DoctypeRefused) return fail(`GET ${g.what}: 200 but holds ${e.message} (${describeBytes(g)})`);
    throw e;
  }
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

const size = (n: number): string =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`;

const TOOL_TIMEOUT_MS = 300_000;

/** Runs a client tool; ENOENT resolves to null (not installed), any other failure rejects with its stderr. */
function runTool(
  cmd: string,
  args: readonly string[],
  o: { cwd?: string; env: NodeJS.ProcessEnv },
): Promise<ClientToolRun | null> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      args,
      { cwd: o.cwd, env: o.env, timeout: TOOL_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024, encoding: 'utf8' },
      (err, stdout, stderr) => {
        if (!err) return resolve({ stdout, stderr });
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return resolve(null);
        const why = err.killed
          ? `timed out after ${TOOL_TIMEOUT_MS / 1000}s`
          : `exit ${String(err.code ?? err.signal)}`;
        reject(new Failed(`${cmd} ${args.join(' ')}: ${why}: ${lastLines(`${stdout}\n${stderr}`)}`));
      },
    );
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

/** The kit for the checks of registry `name` on the hub `api` talks to; tools run in `env`. */
export function checkKit(api: AdminClient, name: string, env: NodeJS.ProcessEnv): ClientCheckKit {
  return {
    registry: name,
    proxyBase: `${api.url}/proxy/${seg(name)}`,
    token: api.token,
    env,
    async get(rel, accept = '*/*') {
      const absolute = /^https?:\/\//i.test(rel);
      const what = absolute ? rel : `/proxy/${seg(name)}/${rel}`;
      const res = await api.get(what, { accept });
      let body: Buffer;
      try {
        body = Buffer.from(await res.arrayBuffer());
      } catch (e) {
        const err = e as Error;
        return fail(`GET ${what}: the answer was cut off (${err.name === 'TimeoutError' ? 'timed out' : err.message})`);
      }
      return { what, status: res.status, type: res.headers.get('content-type') ?? '', body };
    },
    ok200,
    jsonOf,
    gzipped,
    zipped,
    xmlWithRoot,
    statusText,
    tarEntries,
    runTool,
    inTempDir,
    attempt,
    fail,
    printable,
    size,
    seg,
  };
}
