/**
 * Hub replicas as real child processes (`hub serve --config <file>`), as a deployment runs them: MariaDB, S3 and
 * Redis shared, a local spool each, secrets in the environment; a generic registry over the fixture upstream,
 * and one over two mirrors (a bad one first, then the fixture upstream).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, type Proc, startProc, waitFor } from './infra.js';

const BIN = fileURLToPath(new URL('../../../../packages/cli/dist/src/bin.js', import.meta.url));
export const ADMIN_TOKEN = 'hub_fault_plan_admin_token_0123456789abcdef';
export const REGISTRY = 'files';
/** The registry with `upstreams = [bad, good]` (fault 5). */
export const MIRRORED = 'mirrored';
/** `[cache] fetch_lease_secs`: how long a dead replica's fetch lease holds the artifact for it. */
export const FETCH_LEASE_SECS = 3;
/** `[server] mirror_breaker_open_ms` and `headers_timeout_ms`: how long a breaker stays open, and a hung mirror costs. */
export const BREAKER_OPEN_MS = 3000;
export const HEADERS_TIMEOUT_MS = 3000;

export interface Shared {
  databaseUrl: string;
  s3Endpoint: string;
  bucket: string;
  redisUrl: string;
  upstream: string;
  /** The first mirror of MIRRORED, which the test makes hang, reset or answer HTML. */
  badMirror: string;
}

/** The secrets each replica gets from its environment (the `_env` keys of its hub.toml). */
export function replicaEnv(s: Shared): Record<string, string> {
  return {
    HUB_DATABASE_URL: s.databaseUrl,
    HUB_REDIS_URL: s.redisUrl,
    HUB_S3_ACCESS_KEY_ID: 'S3RVER',
    HUB_S3_SECRET_ACCESS_KEY: 'S3RVER',
    HUB_ADMIN_TOKEN: ADMIN_TOKEN,
  };
}

/**
 * The tested configuration of one replica; docs/operations.md ("A two-replica deployment") copies its keys.
 * Rate limits are high (the load comes from one address, nginx) but counted in Redis; the memory tier keeps
 * files up to 1 MiB. The fetch lease, the breaker's open interval and the upstream headers timeout are shorter
 * than their defaults so that each fault plays out in seconds.
 */
export function replicaConfig(s: Shared, port: number, spool: string): string {
  return `[server]
listen = "127.0.0.1:${port}"
internal_url = "http://127.0.0.1:${port}"
trust_proxy = true
trusted_proxies = ["127.0.0.1/32"]
shutdown_grace_ms = 10000
# nginx here checks replicas passively only (no /readyz polling): a drain would only delay the stop.
drain_secs = 0
headers_timeout_ms = ${HEADERS_TIMEOUT_MS}
mirror_breaker_failures = 5
mirror_breaker_open_ms = ${BREAKER_OPEN_MS}

[database]
client = "mysql"
url_env = "HUB_DATABASE_URL"

[storage]
kind = "s3"
bucket = "${s.bucket}"
endpoint = "${s.s3Endpoint}"
force_path_style = true
access_key_id_env = "HUB_S3_ACCESS_KEY_ID"
secret_access_key_env = "HUB_S3_SECRET_ACCESS_KEY"
path = "${spool}"

[redis]
url_env = "HUB_REDIS_URL"

[limits]
rate_store = "redis"
rate_store_failure = "open"
rate_per_ip = 100
burst_per_ip = 10000

[cache]
memory_bytes = 67108864
memory_max_object_bytes = 1048576
max_bytes = 1073741824
fetch_lease_secs = ${FETCH_LEASE_SECS}

[auth]
anonymous = ["source:read"]

[[registries]]
name = "${REGISTRY}"
type = "generic"
upstream = "${s.upstream}"

[[registries]]
name = "${MIRRORED}"
type = "generic"
upstreams = ["${s.badMirror}", "${s.upstream}"]
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
      const p = startProc(process.execPath, [BIN, 'serve', '--config', config], logFile, {
        PATH: process.env.PATH,
        HOME: home,
        HUB_LOG_LEVEL: 'warn',
        ...replicaEnv(shared),
      });
      current = p;
      await waitFor(
        `replica ${name} is ready`,
        async () => {
          if (p.child.exitCode !== null || p.child.signalCode !== null)
            throw new Error(`replica ${name} exited: ${p.log().slice(-3000)}`);
          return (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200;
        },
        60_000,
        100,
      );
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
