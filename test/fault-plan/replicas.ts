/**
 * Hub replicas as real child processes (`hub serve --config <file>`), as a deployment runs them: MariaDB, S3 and
 * Redis shared, a local spool each, one generic registry over the fixture upstream.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, type Proc, startProc, waitFor } from './infra.js';

const BIN = fileURLToPath(new URL('../../../packages/cli/dist/src/bin.js', import.meta.url));
export const ADMIN_TOKEN = 'hub_fault_plan_admin_token_0123456789abcdef';
export const REGISTRY = 'files';

export interface Shared {
  databaseUrl: string;
  s3Endpoint: string;
  bucket: string;
  redisUrl: string;
  upstream: string;
}

/**
 * The tested configuration of one replica; docs/operations.md copies its keys. Rate limits are high (the load
 * comes from one address, nginx) but counted in Redis; the memory tier keeps files up to 1 MiB.
 */
export function replicaConfig(s: Shared, port: number, spool: string): string {
  return `[server]
listen = "127.0.0.1:${port}"
trust_proxy = true
trusted_proxies = ["127.0.0.1/32"]
shutdown_grace_ms = 2000

[database]
client = "mysql"
url = "${s.databaseUrl}"

[storage]
kind = "s3"
bucket = "${s.bucket}"
endpoint = "${s.s3Endpoint}"
force_path_style = true
access_key_id = "S3RVER"
secret_access_key = "S3RVER"
path = "${spool}"

[redis]
url = "${s.redisUrl}"

[limits]
rate_store = "redis"
rate_store_failure = "open"
rate_per_ip = 100
burst_per_ip = 10000

[cache]
memory_bytes = 67108864
memory_max_object_bytes = 1048576
max_bytes = 1073741824

[auth]
anonymous = ["source:read"]

[[registries]]
name = "${REGISTRY}"
type = "generic"
upstream = "${s.upstream}"
`;
}

export interface Replica {
  name: string;
  port: number;
  url: string;
  spool: string;
  proc(): Proc | undefined;
  start(): Promise<void>;
  /** kill -9: no drain, no cleanup. */
  kill(): Promise<void>;
  /** SIGTERM and wait (teardown). */
  stop(): Promise<void>;
  log(): string;
}

export async function createReplica(dir: string, name: string, shared: Shared): Promise<Replica> {
  const port = await freePort();
  const home = path.join(dir, name);
  const spool = path.join(home, 'spool');
  fs.mkdirSync(home, { recursive: true });
  const config = path.join(home, 'hub.toml');
  fs.writeFileSync(config, replicaConfig(shared, port, spool));
  const logFile = path.join(home, 'hub.log');
  const url = `http://127.0.0.1:${port}`;
  let current: Proc | undefined;
  return {
    name,
    port,
    url,
    spool,
    proc: () => current,
    async start() {
      const p = startProc(process.execPath, [BIN, 'serve', '--config', config], logFile, { PATH: process.env.PATH, HOME: home, HUB_ADMIN_TOKEN: ADMIN_TOKEN, HUB_LOG_LEVEL: 'warn' });
      current = p;
      await waitFor(`replica ${name} is ready`, async () => {
        if (p.child.exitCode !== null || p.child.signalCode !== null) throw new Error(`replica ${name} exited: ${p.log().slice(-3000)}`);
        return (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200;
      }, 60_000, 100);
    },
    async kill() {
      const p = current;
      current = undefined;
      await p?.kill('SIGKILL');
    },
    async stop() {
      const p = current;
      current = undefined;
      await p?.kill('SIGTERM');
    },
    log: () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''),
  };
}
