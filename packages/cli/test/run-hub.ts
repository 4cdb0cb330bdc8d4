/**
 * Helpers for the CLI tests: run `hub` in this process (`main(argv, io)`, as bin.ts does) or, for the few
 * smoke tests of the binary itself, as a child process; and start a real hub with the admin plugin and npm.
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import admin from '@hub/admin';
import ipBlocks from '@hub/ip-blocks';
import npm from '@hub/kind-npm';
import {
  npmFixtureHandler,
  startFixtureUpstream,
  startTestHub,
  type FixtureUpstream,
  type TestHub,
} from '@hub/testkit';
import { main } from '../src/main.js';

export const BIN = fileURLToPath(new URL('../src/bin.js', import.meta.url));
const NPM_FIXTURES = fileURLToPath(new URL('../../../kind-npm/test/fixtures/upstream/', import.meta.url));

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `hub ...` in this process with only PATH and `env` as its environment; resolves whatever the exit
 * code. Standard output is also a stream, as in the binary, so streamed downloads take their real path.
 */
export async function runHub(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const decoder = new TextDecoder();
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      stdout += decoder.decode(chunk, { stream: true });
      done();
    },
  });
  const code = await main(args, {
    out: (s) => void (stdout += s),
    err: (s) => void (stderr += s),
    env: { PATH: process.env.PATH, ...env },
    stdout: stream,
  });
  return { code, stdout, stderr };
}

/** Runs the real `hub` binary (bin.ts) in a child process, with only PATH and `env` in its environment. */
export function runHubBinary(args: string[], env: NodeJS.ProcessEnv = {}, cwd?: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd, env: { PATH: process.env.PATH, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? Number((err as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/**
 * Runs each case and checks it is bad usage: exit 2, the reason and the help to run on stderr, nothing
 * on stdout. `env` should point at a closed port, so a case that sent a request would exit 1 instead.
 */
export async function expectUsageErrors(
  t: Test,
  cases: ReadonlyArray<readonly [string[], RegExp, string]>,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  // A few at a time: hub check loads every kind to know its options, and a shared 2-core machine
  // running 18 such processes at once can pass runHub's 60 s timeout.
  const runs: Run[] = [];
  for (let i = 0; i < cases.length; i += 4)
    runs.push(...(await Promise.all(cases.slice(i, i + 4).map(([args]) => runHub(args, env)))));
  cases.forEach(([args, message, help], i) => {
    const r = runs[i]!;
    t.equal(r.code, 2, `${args.join(' ')}: exit 2`);
    t.match(r.stderr, message, `${args.join(' ')}: says why`);
    t.match(r.stderr, `Run 'hub ${help} --help' for usage.`, `${args.join(' ')}: names the help`);
    t.equal(r.stdout, '', `${args.join(' ')}: nothing on stdout`);
  });
}

export interface AdminHub extends TestHub {
  upstream: FixtureUpstream;
  /** `hub <args>` against this hub, as the bootstrap admin unless env says otherwise. */
  cli(args: string[], env?: NodeJS.ProcessEnv): Promise<Run>;
  /** `${url}/proxy/npm` */
  base: string;
}

/** A real hub (admin and IP-block plugins + npm kind) with one npm registry named `npm` over the npm fixture upstream. */
export async function startAdminHub(t: Test): Promise<AdminHub> {
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(NPM_FIXTURES) });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [admin, npm, ipBlocks],
    registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
  });
  t.teardown(() => hub.close());
  return {
    ...hub,
    upstream,
    base: `${hub.url}/proxy/npm`,
    cli: (args, env = {}) => runHub(args, { HUB_URL: hub.url, HUB_TOKEN: hub.adminToken, ...env }),
  };
}

/** A loopback port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Retries `check` until it passes or `ms` runs out (policy memos settle within a second or two). */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  ms = 5_000,
): Promise<T | undefined | false> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v || Date.now() > until) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A command's `--json` output, parsed; the error shows what was printed instead. */
export function json<T = any>(r: Run): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${r.code}): ${r.stdout}${r.stderr}`);
  }
}

/** The non-empty lines of a command's output. */
export const lines = (text: string): string[] => text.split('\n').filter(Boolean);
