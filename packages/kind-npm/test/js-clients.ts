/** yarn 1, yarn 4 and pnpm, run from this repository's dev dependencies in throwaway folders, fully offline. */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const found = (p: () => string): string | null => {
  try {
    const file = p();
    return fs.existsSync(file) ? file : null;
  } catch {
    return null;
  }
};
export const YARN1 = found(() => require.resolve('yarn/bin/yarn.js'));
export const YARN4 = found(() => require.resolve('@yarnpkg/cli-dist/bin/yarn.js'));
export const PNPM = found(() =>
  path.join(path.dirname(require.resolve('yarn/package.json')), '..', 'pnpm', 'bin', 'pnpm.cjs'),
);
export const YARN4_VERSION = YARN4
  ? (JSON.parse(fs.readFileSync(path.join(path.dirname(YARN4), '..', 'package.json'), 'utf8')) as { version: string })
      .version
  : '';

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ClientDir {
  /** The project folder. */
  app: string;
  run(args: string[]): Promise<RunResult>;
  /** The installed package's package.json (node_modules layouts). */
  installed(name: string): Record<string, unknown> | null;
}

/** A project with `dependencies` in a folder of its own (HOME included), torn down with the test. */
export function project(
  t: { teardown(fn: () => void): void },
  script: string,
  dependencies: Record<string, string>,
  extra: Record<string, unknown> = {},
): ClientDir & { dir: string; env: NodeJS.ProcessEnv } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-jsclient-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const app = path.join(dir, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify({ name: 'app', version: '1.0.0', private: true, dependencies, ...extra }, null, 2),
  );
  // Nothing from the machine or the CI: no corepack download, no update checks, no proxy settings.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_CONFIG_HOME: path.join(dir, '.config'),
    COREPACK_ENABLE_NETWORK: '0',
    COREPACK_ENABLE_STRICT: '0',
  };
  return {
    dir,
    app,
    env,
    run: (args) =>
      new Promise((resolve) => {
        execFile(
          process.execPath,
          [script, ...args],
          { cwd: app, env, timeout: 180_000, maxBuffer: 16 * 1024 * 1024 },
          (err, stdout, stderr) => {
            const code = err
              ? typeof (err as { code?: unknown }).code === 'number'
                ? (err as { code: number }).code
                : 1
              : 0;
            resolve({ code, stdout, stderr });
          },
        );
      }),
    installed(name) {
      try {
        return JSON.parse(fs.readFileSync(path.join(app, 'node_modules', name, 'package.json'), 'utf8')) as Record<
          string,
          unknown
        >;
      } catch {
        return null;
      }
    },
  };
}
