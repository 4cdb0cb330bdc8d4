/**
 * Driving the real clients (Debian's ruby, ruby-bundler) in tests: whether they are there, a throwaway
 * HOME for each run, and hub's own request counts.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Test } from 'tap';
import type { GemsSetup } from './setup.js';
import { missingClient } from '@hub/testkit';

export const run = promisify(execFile);

function haveRuby(): string | false {
  try {
    execFileSync('gem', ['--version'], { stdio: 'ignore' });
    execFileSync('bundle', ['--version'], { stdio: 'ignore' });
    return false;
  } catch {
    return missingClient('gem and bundle', 'apt-get install ruby ruby-bundler');
  }
}
/** The `skip` option of a real-client test: false, or why it is skipped. */
export const skip = haveRuby();

/** A throwaway HOME, gem and bundle directories: nothing from the machine's own configuration. */
export function sandbox(t: Test): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-gem-client-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    LANG: 'C.UTF-8',
    GEM_HOME: path.join(dir, 'gem-home'),
    GEM_PATH: path.join(dir, 'gem-home'),
    GEM_SPEC_CACHE: path.join(dir, 'spec-cache'),
    BUNDLE_USER_HOME: path.join(dir, 'bundle-home'),
    BUNDLE_APP_CONFIG: path.join(dir, 'bundle-config'),
    BUNDLE_PATH: path.join(dir, 'bundle'),
    BUNDLE_GEMFILE: path.join(dir, 'app', 'Gemfile'),
    BUNDLE_DISABLE_VERSION_CHECK: 'true',
    BUNDLE_RETRY: '0',
  };
  fs.mkdirSync(path.join(dir, 'app'));
  return { dir, env };
}

/** Requests hub answered, per route and status, from its own /metrics. */
export async function hubRequests(s: GemsSetup): Promise<Record<string, number>> {
  const text = await (await fetch(`${s.url}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(
    /^hub_http_request_duration_seconds_count\{registry="gems",route="([^"]*)",status="(\d+)"\} (\d+)/gm,
  ))
    out[`${m[1]} ${m[2]}`] = Number(m[3]);
  return out;
}
export const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
