/** pip's world for the real-client tests: distributions built by Python, a fixture index, a hub, a venv. */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { startFixtureUpstream, missingClient } from '@hub/testkit';
import { setup } from './setup.js';
import type { FixtureDist } from './simple-fixture.js';

const BUILD = fileURLToPath(new URL('../../test/fixtures/build_dists.py', import.meta.url));

export function pythonMissing(): string | false {
  try {
    execFileSync('python3', ['-c', 'import venv, ensurepip'], { stdio: 'ignore' });
    return false;
  } catch {
    return missingClient('python3 venv with pip', 'apt-get install python3-venv');
  }
}

/** Runs a command; resolves with its exit code and output, never rejects on a non-zero exit. */
export function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { env, cwd, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({
        code: err ? (typeof err.code === 'number' ? err.code : 1) : 0,
        stdout: String(stdout),
        stderr: String(stderr),
      });
    });
  });
}

/** pip's environment: nothing from the host's pip configuration, no cache, no prompts. */
function pipEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('PIP_') && k !== 'PYTHONPATH'),
  );
  return {
    ...env,
    PIP_NO_CACHE_DIR: '1',
    PIP_CONFIG_FILE: '/dev/null',
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
    PIP_NO_INPUT: '1',
    PIP_NO_COLOR: '1',
  };
}

/** The distributions build_dists.py wrote, as the fixture index lists them (hub-demo 2.0.0 yanked). */
function distsOf(dir: string): FixtureDist[] {
  const out: FixtureDist[] = [];
  for (const filename of fs.readdirSync(dir).sort()) {
    if (filename.endsWith('.metadata')) continue;
    const project = filename.startsWith('hub_demo-') ? 'hub-demo' : 'hubdep';
    const body = fs.readFileSync(path.join(dir, filename));
    const meta = path.join(dir, `${filename}.metadata`);
    out.push({
      project,
      filename,
      body,
      ...(fs.existsSync(meta) ? { metadata: fs.readFileSync(meta) } : {}),
      ...(project === 'hub-demo' ? { requiresPython: '>=3.7' } : {}),
      ...(filename.includes('-2.0.0-') ? { yanked: 'broken build' } : {}),
      uploadTime: '2020-01-01T00:00:00Z',
    });
  }
  return out;
}

export interface PipWorld {
  dir: string;
  index: string;
  pip: string;
  python: string;
  env: NodeJS.ProcessEnv;
  s: Awaited<ReturnType<typeof setup>>;
  built: string;
}

/** A fixture index and files host, a hub in front, and a fresh venv made by `python` (default: python3 on PATH). */
export async function world(
  t: Test,
  python = 'python3',
  o: { config?: Record<string, Record<string, unknown>>; registry?: Record<string, unknown> } = {},
): Promise<PipWorld> {
  // Not t.testdir(): the hub's setup takes that folder (and each call empties it).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-pypi-pip-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const built = path.join(dir, 'dists');
  execFileSync('python3', [BUILD, built], { stdio: 'ignore' });
  const dists = distsOf(built);
  const files = await startFixtureUpstream({ root: built });
  t.teardown(() => files.close());
  const s = await setup(t, { dists: () => dists, filesHost: files, ...o });
  const token = await s.token('ci', { roles: ['reader'] });
  const u = new URL(`${s.base}/simple/`);
  u.username = 'x';
  u.password = token;
  const venv = path.join(dir, 'venv');
  const env = pipEnv();
  const made = await run(python, ['-m', 'venv', venv], env);
  if (made.code !== 0) throw new Error(`${python} -m venv failed: ${made.stderr}`);
  return {
    dir,
    index: u.href,
    pip: path.join(venv, 'bin', 'pip'),
    python: path.join(venv, 'bin', 'python'),
    env,
    s,
    built,
  };
}
