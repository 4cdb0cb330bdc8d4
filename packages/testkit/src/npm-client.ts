/** The real npm client against a hub, in a throwaway environment of its own (HOME, cache, userconfig). */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface NpmResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface NpmEnv {
  dir: string;
  /** Runs `npm ...args` in `cwd` (default: the env's app folder); never throws on a non-zero exit. */
  npm(args: string[], cwd?: string): Promise<NpmResult>;
  /** `npm install --no-save --no-package-lock ...pkgs` in the app folder; never throws on a non-zero exit. */
  install(...pkgs: string[]): Promise<NpmResult>;
  /** The app's node_modules folder. */
  modules: string;
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
export function npmEnv(t: { teardown(fn: () => void): void }, registry: string, token: string | null): NpmEnv {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-npm-'));
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
  const env_: NpmEnv = {
    dir,
    modules: path.join(app, 'node_modules'),
    install: (...pkgs) => env_.npm(['install', '--no-save', '--no-package-lock', ...pkgs]),
    async npm(args, cwd = app) {
      try {
        const { stdout, stderr } = await run('npm', args, { cwd, env, timeout: 120_000 });
        return { code: 0, stdout, stderr };
      } catch (e) {
        const err = e as { code?: number; stdout?: string; stderr?: string };
        return {
          code: typeof err.code === 'number' ? err.code : 1,
          stdout: err.stdout ?? '',
          stderr: err.stderr ?? '',
        };
      }
    },
    makePackage(
      manifest,
      index = `module.exports = ${JSON.stringify(`${String(manifest.name)}@${String(manifest.version)}`)};\n`,
    ) {
      const pkg = path.join(dir, `pkg-${++n}`);
      fs.mkdirSync(pkg);
      fs.writeFileSync(
        path.join(pkg, 'package.json'),
        JSON.stringify({ main: 'index.js', license: 'MIT', ...manifest }, null, 2),
      );
      fs.writeFileSync(path.join(pkg, 'index.js'), index);
      return pkg;
    },
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
    installedFile: (name, file) => fs.readFileSync(path.join(app, 'node_modules', name, file), 'utf8'),
  };
  return env_;
}
