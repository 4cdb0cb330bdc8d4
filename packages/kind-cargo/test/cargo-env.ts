/** The real cargo for kind-cargo's tests: rustup's (Debian's 0.66 has neither sparse indexes nor registry tokens), and its environment. */
import { execFile, execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { missingClient } from '@hub/testkit';

export const run = promisify(execFile);

function findCargo(): string | null {
  for (const c of [process.env.HUB_TEST_CARGO, path.join(os.homedir(), '.cargo', 'bin', 'cargo'), 'cargo'].filter(
    Boolean,
  ) as string[]) {
    try {
      const m = /^cargo 1\.(\d+)\./.exec(
        execFileSync(c, ['--version'], { encoding: 'utf8', env: { ...process.env, RUSTUP_AUTO_INSTALL: '0' } }),
      );
      if (m && Number(m[1]) >= 74) return c;
    } catch {
      // not this one
    }
  }
  return null;
}

/** The cargo command, or null when none new enough is here. */
export const cargo = findCargo();

/** A test's `skip` when cargo is absent (CI installs it). */
export const noCargo: false | string = cargo
  ? false
  : missingClient('cargo >= 1.74', 'rustup cargo in ~/.cargo/bin, or HUB_TEST_CARGO');

/** cargo's environment: its own HOME and CARGO_HOME (never the user's), rustup's toolchains, the token for registry `hub`. */
export function cargoEnv(o: { home: string; cargoHome: string; token: string; targetDir?: string }): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: o.home,
    RUSTUP_HOME: process.env.RUSTUP_HOME ?? path.join(os.homedir(), '.rustup'),
    RUSTUP_AUTO_INSTALL: '0',
    CARGO_HOME: o.cargoHome,
    ...(o.targetDir ? { CARGO_TARGET_DIR: o.targetDir } : {}),
    CARGO_REGISTRIES_HUB_TOKEN: o.token,
    CARGO_TERM_COLOR: 'never',
    CARGO_HTTP_TIMEOUT: '60',
  };
}
