/** The real go command for kind-go's tests: whether it is here, and a clean environment where hub is the only proxy. */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Test } from 'tap';
import { missingClient } from '@hub/testkit';

export const run = promisify(execFile);

const hasGo = (() => {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A test's `skip` when go is absent (CI installs it). */
export const noGo: false | string = hasGo ? false : missingClient('go', 'apt-get install golang-go');

/** A temp directory to be go's HOME, removed when the test ends. */
export function goHome(t: Test, prefix: string): string {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.teardown(() => fs.rmSync(home, { recursive: true, force: true }));
  return home;
}

/**
 * go's environment: its own HOME (for .netrc), module cache and GOPATH; hub is the only proxy, no checksum
 * database, no toolchain download. `extra` overrides a variable; an undefined one is left out of the environment.
 */
export function goEnvVars(
  home: string,
  goproxy: string,
  extra: Record<string, string | undefined> = {},
): NodeJS.ProcessEnv & { GOMODCACHE: string } {
  return {
    PATH: process.env.PATH,
    HOME: home,
    GOPATH: path.join(home, 'gopath'),
    GOMODCACHE: path.join(home, 'modcache'),
    GOCACHE: path.join(home, 'gocache'),
    GOPROXY: goproxy,
    GOSUMDB: 'off',
    GOFLAGS: '-modcacherw',
    GONOPROXY: '',
    GOPRIVATE: '',
    GOTOOLCHAIN: 'local',
    ...extra,
  };
}
