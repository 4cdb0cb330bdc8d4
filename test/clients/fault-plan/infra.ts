/**
 * The fault plan's own infrastructure, each piece a real process on a free loopback port, stopped by its PID:
 * a private MariaDB (its own data directory), a private Redis, an S3-protocol server (s3rver in a child
 * process), and nginx in front of the hub replicas. Each can be stopped (kill -9) and started again on the
 * same port and data, which is how the faults are made.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The executables the tier needs; `missing` says which are absent (the tier is then skipped, saying so). */
export const TOOLS = {
  nginx: '/usr/sbin/nginx',
  mariadbd: '/usr/sbin/mariadbd',
  installDb: 'mariadb-install-db',
  redis: 'redis-server',
};

export function missingTools(): string[] {
  const out: string[] = [];
  for (const [name, bin] of Object.entries(TOOLS)) {
    const found = bin.startsWith('/') ? fs.existsSync(bin) : spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;
    if (!found) out.push(`${name} (${bin})`);
  }
  return out;
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every `everyMs` until it returns a truthy value; throws `what` after `ms`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | null | false>,
  ms = 20_000,
  everyMs = 50,
): Promise<T> {
  const until = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > until)
      throw new Error(`${what}: not within ${ms} ms${last ? ` (${(last as Error).message})` : ''}`);
    await sleep(everyMs);
  }
}

/** Whether a TCP connection to the port is accepted. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

/** Every process this file started and has not seen exit, killed if the test process leaves without teardown. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live)
    if (c.pid)
      try {
        process.kill(c.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
});

/** A child process whose output goes to a log file (kept after a kill -9, for the report on failure). */
export interface Proc {
  pid: number;
  child: ChildProcess;
  exited: Promise<number | string | null>;
  /** kill -9 by PID, resolves once it is gone. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  log(): string;
}

export function startProc(cmd: string, args: string[], logFile: string, env: NodeJS.ProcessEnv = process.env): Proc {
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(cmd, args, { stdio: ['ignore', fd, fd], env });
  fs.closeSync(fd);
  if (!child.pid) throw new Error(`could not start ${cmd}`);
  live.add(child);
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve(signal ?? code);
    }),
  );
  child.once('error', () => live.delete(child));
  return {
    pid: child.pid,
    child,
    exited,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(child.pid!, signal);
        } catch {
          // already gone
        }
      }
      await exited;
    },
    log: () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''),
  };
}

/** A dependency the test can stop (kill -9) and start again on the same port and data. */
export interface Service {
  port: number;
  proc(): Proc | undefined;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** `stopSignal`: SIGKILL (a crash) by default; nginx gets SIGTERM, since its workers outlive a killed master. */
function service(
  port: number,
  launch: () => Proc,
  ready: () => Promise<boolean>,
  what: string,
  stopSignal: NodeJS.Signals = 'SIGKILL',
): Service {
  let current: Proc | undefined;
  return {
    port,
    proc: () => current,
    async start() {
      if (current) throw new Error(`${what} is already running`);
      const p = launch();
      current = p;
      await waitFor(
        `${what} starts on port ${port}`,
        async () => {
          if (p.child.exitCode !== null || p.child.signalCode !== null)
            throw new Error(`${what} exited: ${p.log().slice(-2000)}`);
          return ready();
        },
        30_000,
      );
    },
    async stop() {
      const p = current;
      current = undefined;
      await p?.kill(stopSignal);
    },
  };
}

/** A private MariaDB: `mariadb-install-db` into `dir`, then `mariadbd` on a free port, grant tables skipped (root, no password). */
export async function startMariadb(dir: string): Promise<Service & { url(database: string): string }> {
  const data = path.join(dir, 'data');
  fs.mkdirSync(dir, { recursive: true });
  const install = spawnSync(
    TOOLS.installDb,
    [
      '--no-defaults',
      `--datadir=${data}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      ...(isRoot ? ['--user=root'] : []),
    ],
    {
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  if (install.status !== 0) throw new Error(`mariadb-install-db failed: ${install.stderr || install.stdout}`);
  const port = await freePort();
  const args = [
    '--no-defaults',
    `--datadir=${data}`,
    `--socket=${path.join(dir, 'mysqld.sock')}`,
    `--pid-file=${path.join(dir, 'mysqld.pid')}`,
    `--port=${port}`,
    '--bind-address=127.0.0.1',
    '--skip-grant-tables',
    '--skip-log-bin',
    '--innodb-buffer-pool-size=32M',
    '--max-connections=200',
    ...(isRoot ? ['--user=root'] : []),
  ];
  const svc = service(
    port,
    () => startProc(TOOLS.mariadbd, args, path.join(dir, 'mariadbd.log')),
    () => accepts(port),
    'mariadbd',
  );
  await svc.start();
  return { ...svc, url: (database) => `mysql://root@127.0.0.1:${port}/${database}` };
}

/** A private redis-server on a free port, nothing saved to disk (a restart starts empty). */
export async function startRedis(dir: string): Promise<Service> {
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  const svc = service(
    port,
    () => startProc(TOOLS.redis, args, path.join(dir, 'redis.log')),
    () => accepts(port),
    'redis-server',
  );
  await svc.start();
  return svc;
}

const S3_MAIN = fileURLToPath(new URL('./s3-main.js', import.meta.url));
export const S3_BUCKET = 'hub';

/** s3rver in a child process (so a stop is a real process death), its objects under `dir`, bucket `hub`. */
export async function startS3(dir: string): Promise<Service & { endpoint: string; objectsDir: string }> {
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const objects = path.join(dir, 'objects');
  const svc = service(
    port,
    () => startProc(process.execPath, [S3_MAIN, objects, String(port), S3_BUCKET], path.join(dir, 's3rver.log')),
    () => accepts(port),
    's3rver',
  );
  await svc.start();
  return { ...svc, endpoint: `http://127.0.0.1:${port}`, objectsDir: path.join(objects, S3_BUCKET) };
}

/** nginx in the foreground (`daemon off`), round robin over `backends`, retrying idempotent requests on the next one. */
export async function startNginx(dir: string, backends: number[]): Promise<Service & { url: string }> {
  fs.mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const conf = path.join(dir, 'nginx.conf');
  fs.writeFileSync(conf, nginxConf(dir, port, backends));
  const args = ['-p', dir, '-c', conf, '-g', `daemon off; pid ${path.join(dir, 'nginx.pid')};`];
  const svc = service(
    port,
    () => startProc(TOOLS.nginx, args, path.join(dir, 'nginx.out')),
    () => accepts(port),
    'nginx',
    'SIGTERM',
  );
  await svc.start();
  return { ...svc, url: `http://127.0.0.1:${port}` };
}

/**
 * The load balancer as a deployment would configure it: `proxy_next_upstream` moves an idempotent request that
 * failed to connect, timed out or got 502/503 to the other replica (never a POST); no response buffering, so a
 * large download streams through. `max_fails=0`: a dead replica refuses at once on loopback, so nginx need not
 * mark it down (a 503 answered during a database outage must not take both replicas out of rotation).
 * X-Upstream names the replica that answered, so the test knows which one a download runs on.
 */
export function nginxConf(dir: string, port: number, backends: number[]): string {
  const p = (name: string) => path.join(dir, name);
  return `${isRoot ? 'user root;\n' : ''}worker_processes 1;
error_log ${p('error.log')} warn;
events { worker_connections 1024; }
http {
  access_log ${p('access.log')};
  client_body_temp_path ${p('client_body')};
  proxy_temp_path ${p('proxy_temp')};
  fastcgi_temp_path ${p('fastcgi_temp')};
  uwsgi_temp_path ${p('uwsgi_temp')};
  scgi_temp_path ${p('scgi_temp')};
  upstream hub {
${backends.map((b) => `    server 127.0.0.1:${b} max_fails=0;`).join('\n')}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    client_max_body_size 2m;
    location / {
      proxy_pass http://hub;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_next_upstream error timeout http_502 http_503;
      proxy_next_upstream_tries 2;
      proxy_connect_timeout 2s;
      proxy_read_timeout 30s;
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`;
}
