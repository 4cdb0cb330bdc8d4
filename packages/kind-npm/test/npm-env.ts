/** The real npm client against a test hub, in a throwaway environment, and hand-made tarballs for refusal tests. */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Test } from 'tap';

const run = promisify(execFile);

export const hasNpm = await run('npm', ['--version']).then(
  () => true,
  () => false,
);

export interface NpmResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface NpmEnv {
  dir: string;
  /** Runs `npm ...args` in `cwd` (default: the env's app folder); never throws on a non-zero exit. */
  npm(args: string[], cwd?: string): Promise<NpmResult>;
  /** A package folder with package.json and index.js, ready for `npm publish`. */
  makePackage(manifest: Record<string, unknown>, index?: string): string;
  /** The installed package's package.json, after `npm install` in the app folder. */
  installed(name: string): Record<string, unknown> | null;
  /** A file of the installed package. */
  installedFile(name: string, file: string): string;
}

/**
 * An npm environment of its own (cache, HOME, userconfig) whose registry is `registry` and whose token for it
 * is written as the `.npmrc` `_authToken` line a team would use.
 */
export function npmEnv(t: Test, registry: string, token: string | null): NpmEnv {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-npm-publish-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const app = path.join(dir, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
  const npmrc = path.join(dir, 'npmrc');
  const hostPath = registry.replace(/^https?:/, '');
  fs.writeFileSync(npmrc, `registry=${registry}\n${token ? `${hostPath}:_authToken=${token}\n` : ''}`);
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    npm_config_userconfig: npmrc,
    npm_config_cache: path.join(dir, 'cache'),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_fetch_retries: '0',
    npm_config_loglevel: 'notice',
  };
  let n = 0;
  return {
    dir,
    async npm(args, cwd = app) {
      try {
        const { stdout, stderr } = await run('npm', args, { cwd, env, timeout: 120_000 });
        return { code: 0, stdout, stderr };
      } catch (e) {
        const err = e as { code?: number; stdout?: string; stderr?: string };
        return { code: typeof err.code === 'number' ? err.code : 1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
      }
    },
    makePackage(manifest, index = `module.exports = ${JSON.stringify(`${String(manifest.name)}@${String(manifest.version)}`)};\n`) {
      const pkg = path.join(dir, `pkg-${++n}`);
      fs.mkdirSync(pkg);
      fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ main: 'index.js', license: 'MIT', ...manifest }, null, 2));
      fs.writeFileSync(path.join(pkg, 'index.js'), index);
      return pkg;
    },
    installed(name) {
      try {
        return JSON.parse(fs.readFileSync(path.join(app, 'node_modules', name, 'package.json'), 'utf8')) as Record<string, unknown>;
      } catch {
        return null;
      }
    },
    installedFile: (name, file) => fs.readFileSync(path.join(app, 'node_modules', name, file), 'utf8'),
  };
}

/** A ustar header block for one regular file. */
function tarHeader(name: string, size: number): Buffer {
  const h = Buffer.alloc(512);
  const field = (value: string, offset: number, length: number) => h.write(value, offset, length, 'ascii');
  const octal = (value: number, offset: number, length: number) => field(value.toString(8).padStart(length - 1, '0'), offset, length - 1);
  field(name, 0, 100);
  octal(0o644, 100, 8);
  octal(0, 108, 8);
  octal(0, 116, 8);
  octal(size, 124, 12);
  octal(1700000000, 136, 12);
  h.fill(' ', 148, 156);
  field('0', 156, 1);
  field('ustar\u000000', 257, 8);
  let sum = 0;
  for (const b of h) sum += b;
  field(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 8);
  return h;
}

/** A gzipped tar of `files` (name → content), as npm pack lays them out under `package/`. */
export function tgz(files: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, content] of Object.entries(files)) {
    const body = Buffer.from(content);
    parts.push(tarHeader(name, body.length), body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return zlib.gzipSync(Buffer.concat(parts));
}

/** The packument body `npm publish` sends for one version (the same fields npm 11 sends). */
export function publishBody(name: string, version: string, tarball: Buffer, over: { manifest?: Record<string, unknown>; integrity?: string; shasum?: string; attachment?: string; distTags?: Record<string, string> } = {}) {
  const integrity = over.integrity ?? `sha512-${crypto.createHash('sha512').update(tarball).digest('base64')}`;
  const shasum = over.shasum ?? crypto.createHash('sha1').update(tarball).digest('hex');
  return {
    _id: name,
    name,
    'dist-tags': over.distTags ?? { latest: version },
    versions: { [version]: { name, version, _id: `${name}@${version}`, dist: { integrity, shasum, tarball: `http://127.0.0.1:9/${name}/-/${name}-${version}.tgz` }, ...over.manifest } },
    access: null,
    _attachments: { [over.attachment ?? `${name}-${version}.tgz`]: { content_type: 'application/octet-stream', data: tarball.toString('base64'), length: tarball.length } },
  };
}

/** A request with a body, its path sent exactly as written (rawRequest sends none). */
export function send(url: string, opts: { method: string; headers?: Record<string, string>; body?: Buffer }): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  const u = new URL(url);
  const rawPath = url.slice(url.indexOf('/', url.indexOf('//') + 2));
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path: rawPath, method: opts.method, headers: opts.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}
