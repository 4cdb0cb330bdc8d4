/**
 * Debian's tinyproxy as a real forward proxy for tests, on loopback with its own config and log. Its log
 * (level Connect) names every request and CONNECT it handled, which is how a test proves a request went
 * through it. Undefined when tinyproxy is not installed: tests then skip, saying why.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Tinyproxy {
  /** http://127.0.0.1:<port>, without credentials. */
  url: string;
  port: number;
  /** The request lines it logged: `CONNECT host:port HTTP/1.1`, `GET http://... HTTP/1.1`. */
  requests(): string[];
  close(): Promise<void>;
}

export function tinyproxyPath(): string | undefined {
  for (const p of ['/usr/bin/tinyproxy', '/usr/sbin/tinyproxy']) if (existsSync(p)) return p;
  const which = spawnSync('sh', ['-c', 'command -v tinyproxy'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim() : undefined;
}

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Starts tinyproxy in the foreground with a config in `dir`; `auth` turns on its BasicAuth. */
export async function startTinyproxy(
  dir: string,
  o: { auth?: { user: string; password: string } } = {},
): Promise<Tinyproxy | undefined> {
  const bin = tinyproxyPath();
  if (!bin) return undefined;
  const port = await freePort();
  const log = path.join(dir, 'tinyproxy.log');
  const conf = path.join(dir, 'tinyproxy.conf');
  writeFileSync(
    conf,
    [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 30',
      `LogFile "${log}"`,
      'LogLevel Connect',
      'MaxClients 50',
      'Allow 127.0.0.1',
      'DisableViaHeader Yes',
      // No ConnectPort line: CONNECT to any port (test upstreams listen on ephemeral ports).
      ...(o.auth ? [`BasicAuth ${o.auth.user} ${o.auth.password}`] : []),
      '',
    ].join('\n'),
  );
  const child = spawn(bin, ['-d', '-c', conf], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Ready once it accepts connections.
  for (let i = 0; ; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) break;
    if (i > 50 || child.exitCode !== null) {
      child.kill();
      throw new Error(`tinyproxy did not start (${readText(log).slice(-500)})`);
    }
    await sleep(100);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests: () =>
      readText(log)
        .split('\n')
        .map((l) => /Request \(file descriptor \d+\): (.*)$/.exec(l)?.[1])
        .filter((x): x is string => x !== undefined),
    close: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
