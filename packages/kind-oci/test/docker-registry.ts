/**
 * Debian's `docker-registry` (the distribution registry) run by a test: filesystem storage in a temp folder,
 * htpasswd auth (`htpasswd -B`), on a free loopback port; and skopeo in a sandbox of its own (no machine
 * registries.conf, auth file or HOME). Tests skip, saying so, where either is not installed.
 */
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Test } from 'tap';
import { missingClient } from '@hub/testkit';

const run = promisify(execFile);
export const REGISTRY_BIN = '/usr/bin/docker-registry';
export const USER = 'pusher';
export const PASS = 'pusher-secret';

export function missingTools(): string | false {
  try {
    execFileSync('skopeo', ['--version'], { stdio: 'ignore' });
    execFileSync('htpasswd', ['-h'], { stdio: 'ignore' });
  } catch (e) {
    if ((e as { status?: number }).status === undefined)
      return missingClient('skopeo and htpasswd', 'apt-get install skopeo apache2-utils');
  }
  if (!fs.existsSync(REGISTRY_BIN)) return missingClient('docker-registry', 'apt-get install docker-registry');
  return false;
}

export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

export interface DockerRegistry {
  url: string;
  host: string;
  stop(): Promise<void>;
}

/** Starts the registry and waits until `/v2/` answers (401: it wants the htpasswd credentials). */
export async function startDockerRegistry(t: Test): Promise<DockerRegistry> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-oci-registry-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  execFileSync('htpasswd', ['-B', '-b', '-c', path.join(dir, 'htpasswd'), USER, PASS], { stdio: 'ignore' });
  const port = await freePort();
  const config = [
    'version: 0.1',
    'log: { level: error, accesslog: { disabled: true } }',
    `storage: { filesystem: { rootdirectory: ${path.join(dir, 'data')} }, delete: { enabled: true } }`,
    `http: { addr: "127.0.0.1:${port}" }`,
    `auth: { htpasswd: { realm: test-registry, path: ${path.join(dir, 'htpasswd')} } }`,
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'config.yml'), `${config}\n`);
  const child: ChildProcess = spawn(REGISTRY_BIN, ['serve', path.join(dir, 'config.yml')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => void (stderr = (stderr + c.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  t.teardown(stop);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const status = await new Promise<number>((resolve) => {
      http.get(`${url}/v2/`, (res) => (res.resume(), resolve(res.statusCode ?? 0))).on('error', () => resolve(0));
    });
    if (status === 401) break;
    if (child.exitCode !== null || i > 200) throw new Error(`docker-registry did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url, host: `127.0.0.1:${port}`, stop };
}

/** A forwarding proxy in front of the registry that counts the requests it passes: what hub asked upstream. */
export async function countingProxy(
  t: Test,
  target: string,
): Promise<{ url: string; requests: string[]; close(): Promise<void> }> {
  const requests: string[] = [];
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const up = http.request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: to.host },
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  t.teardown(close);
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, requests, close };
}

/** skopeo with a sandboxed HOME, auth file and registries.conf; rejects with its stderr when it fails. */
export function skopeo(t: Test): (args: string[]) => Promise<{ stdout: string; stderr: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-skopeo-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'registries.conf'), '');
  fs.writeFileSync(path.join(dir, 'policy.json'), JSON.stringify({ default: [{ type: 'insecureAcceptAnything' }] }));
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    CONTAINERS_REGISTRIES_CONF: path.join(dir, 'registries.conf'),
    REGISTRY_AUTH_FILE: path.join(dir, 'auth.json'),
    TMPDIR: dir,
  };
  return (args) =>
    run('skopeo', ['--policy', path.join(dir, 'policy.json'), ...args], {
      env,
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    });
}
