/** A pypi registry to publish to, and uploads as twine fills the legacy form, sent by curl. */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { setup, type PypiSetup } from './setup.js';
import { missingClient } from '@hub/testkit';

export function missing(cmd: string, args: string[]): boolean {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return false;
  } catch {
    return true;
  }
}
export const noCurl = missing('curl', ['--version']) && missingClient('curl', 'apt-get install curl');

export interface Published extends PypiSetup {
  publisher: string;
  reader: string;
  dir: string;
}

export async function start(t: Test, mode: 'local' | 'hybrid'): Promise<Published> {
  const s = await setup(t, { registry: { mode, ...(mode === 'local' ? { upstream: undefined } : {}) } });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-pypi-publish-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return {
    ...s,
    dir,
    publisher: await s.token('ci', { roles: ['publisher'] }),
    reader: await s.token('dev', { roles: ['reader'] }),
  };
}

/** `curl -F` as twine fills the form (token as the password of `__token__`); resolves with the status code and body. */
export function upload(
  s: Published,
  file: string,
  fields: Record<string, string>,
  token = s.publisher,
): Promise<{ status: number; body: string }> {
  const args = [
    '-s',
    '-o',
    '-',
    '-w',
    '\n%{http_code}',
    '-u',
    `__token__:${token}`,
    '-F',
    ':action=file_upload',
    '-F',
    'protocol_version=1',
  ];
  for (const [k, v] of Object.entries(fields)) args.push('-F', `${k}=${v}`);
  args.push('-F', `content=@${file}`, `${s.base}/legacy/`);
  return new Promise((resolve, reject) =>
    execFile('curl', args, (err, stdout) => {
      if (err) return reject(err);
      const at = stdout.lastIndexOf('\n');
      resolve({ status: Number(stdout.slice(at + 1)), body: stdout.slice(0, at) });
    }),
  );
}

export function writeDist(s: Published, name: string, body: Buffer): string {
  const file = path.join(s.dir, name);
  fs.writeFileSync(file, body);
  return file;
}
