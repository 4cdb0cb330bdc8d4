/**
 * A bounded load generator on loopback: a fixed list of GETs, a few at a time, each retried like a package
 * manager retries (connection errors, cut bodies and 5xx, up to `retries` more times, with a short backoff).
 * Every 200 body is hashed and compared with what the upstream serves for that file.
 */
import crypto from 'node:crypto';
import http from 'node:http';

export interface Job {
  path: string;
  /** 200 with this SHA-256, or a refusal status (403, or 401 for a revoked token) that must hold on every attempt. */
  expect: { status: 200; sha256: string } | { status: 401 | 403 };
  /** Sent as a Bearer token (a token holder's download); none: anonymous. */
  token?: string;
}

export interface Attempt {
  status: number | null;
  /** Transport failure or a body cut short. */
  error?: string;
  bytes: number;
  sha256?: string;
  /** X-Upstream from nginx: the replica that answered. */
  replica?: string;
  /** X-Hub-Cache: hit, miss, coalesced, or peer (streamed from the replica holding the fetch lease). */
  cache?: string;
  /** When it started (epoch ms) and how long it took. */
  at: number;
  ms: number;
}

export interface JobResult {
  job: Job;
  attempts: Attempt[];
  /** The last attempt matched the expectation. */
  ok: boolean;
}

export interface LoadReport {
  /** HTTP requests sent, retries included. */
  requests: number;
  jobs: number;
  /** Failed attempts clients saw (and retried). */
  attempt_errors: number;
  /** Jobs that still failed after every retry. */
  client_errors: number;
  /** Bytes of 200 bodies whose SHA-256 matched the upstream's. */
  bytes_verified: number;
  /** 200 bodies whose hash did not match (must stay 0: a corrupt download). */
  corrupt: number;
  /** A refusal (403, 401) that was ever answered with something else. */
  refusals_broken: number;
}

export interface LoadOptions {
  base: string;
  jobs: Job[];
  concurrency: number;
  retries: number;
  /** The whole run stops starting new attempts after this long. */
  deadlineMs: number;
  /** Called with the first response's headers of each attempt (e.g. to learn which replica serves a download). */
  onHeaders?: (job: Job, res: http.IncomingMessage) => void;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

/** One GET, the body read and hashed; never throws. */
export function get(
  url: string,
  headers: Record<string, string> = {},
  onHeaders?: (res: http.IncomingMessage) => void,
): Promise<Attempt & { body?: Buffer }> {
  const started = Date.now();
  return new Promise((resolve) => {
    let done = false;
    const finish = (a: Omit<Attempt, 'ms' | 'at'> & { body?: Buffer }) => {
      if (done) return;
      done = true;
      resolve({ ...a, at: started, ms: Date.now() - started });
    };
    const req = http.get(url, { agent, headers, timeout: 60_000 }, (res) => {
      onHeaders?.(res);
      const hash = crypto.createHash('sha256');
      const chunks: Buffer[] = [];
      let bytes = 0;
      const replica = typeof res.headers['x-upstream'] === 'string' ? res.headers['x-upstream'] : undefined;
      const cache = typeof res.headers['x-hub-cache'] === 'string' ? res.headers['x-hub-cache'] : undefined;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        hash.update(c);
        if (bytes <= 1024 * 1024) chunks.push(c);
      });
      res.on('aborted', () =>
        finish({ status: res.statusCode ?? null, error: 'body cut short', bytes, replica, cache }),
      );
      res.on('error', (e) =>
        finish({ status: res.statusCode ?? null, error: `body: ${e.message}`, bytes, replica, cache }),
      );
      res.on('end', () => {
        const cl = res.headers['content-length'];
        if (!res.complete || (cl !== undefined && Number(cl) !== bytes))
          return finish({
            status: res.statusCode ?? null,
            error: `body cut short at ${bytes} bytes`,
            bytes,
            replica,
            cache,
          });
        finish({
          status: res.statusCode ?? null,
          bytes,
          sha256: hash.digest('hex'),
          replica,
          cache,
          body: bytes <= 1024 * 1024 ? Buffer.concat(chunks) : undefined,
        });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e) => finish({ status: null, error: e.message, bytes: 0 }));
  });
}

const retryable = (a: Attempt) => a.error !== undefined || (a.status !== null && a.status >= 500);
const matches = (job: Job, a: Attempt) =>
  a.error === undefined &&
  a.status === job.expect.status &&
  (job.expect.status !== 200 || a.sha256 === job.expect.sha256);

/** Runs every job (until the deadline), at most `concurrency` at once. */
export async function runLoad(o: LoadOptions): Promise<{ report: LoadReport; results: JobResult[] }> {
  const deadline = Date.now() + o.deadlineMs;
  const results: JobResult[] = [];
  let next = 0;
  async function worker() {
    while (next < o.jobs.length && Date.now() < deadline) {
      const job = o.jobs[next++]!;
      const attempts: Attempt[] = [];
      for (let i = 0; i <= o.retries && Date.now() < deadline; i++) {
        const a = await get(
          `${o.base}${job.path}`,
          job.token ? { authorization: `Bearer ${job.token}` } : {},
          o.onHeaders && ((res) => o.onHeaders!(job, res)),
        );
        delete (a as { body?: Buffer }).body;
        attempts.push(a);
        if (!retryable(a)) break;
        await new Promise((r) => setTimeout(r, 100 * (i + 1)));
      }
      results.push({ job, attempts, ok: attempts.length > 0 && matches(job, attempts[attempts.length - 1]!) });
    }
  }
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  return { report: summarize(results), results };
}

export function summarize(results: JobResult[]): LoadReport {
  const all = results.flatMap((r) => r.attempts.map((a) => ({ job: r.job, a })));
  return {
    requests: all.length,
    jobs: results.length,
    attempt_errors: all.filter(({ job, a }) => !matches(job, a)).length,
    client_errors: results.filter((r) => !r.ok).length,
    bytes_verified: all
      .filter(({ job, a }) => job.expect.status === 200 && matches(job, a))
      .reduce((n, { a }) => n + a.bytes, 0),
    corrupt: all.filter(
      ({ job, a }) =>
        job.expect.status === 200 && a.status === 200 && a.error === undefined && a.sha256 !== job.expect.sha256,
    ).length,
    refusals_broken: all.filter(({ job, a }) => job.expect.status !== 200 && a.status !== job.expect.status).length,
  };
}

/** Adds up several runs' reports. */
export function addReports(...reports: LoadReport[]): LoadReport {
  const out: LoadReport = {
    requests: 0,
    jobs: 0,
    attempt_errors: 0,
    client_errors: 0,
    bytes_verified: 0,
    corrupt: 0,
    refusals_broken: 0,
  };
  for (const r of reports) for (const k of Object.keys(out) as Array<keyof LoadReport>) out[k] += r[k];
  return out;
}

/** A JSON request (admin API); never throws on HTTP errors. */
export async function jsonRequest(
  url: string,
  init: { method?: string; token?: string; body?: unknown; timeoutMs?: number } = {},
) {
  const started = Date.now();
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
    signal: AbortSignal.timeout(init.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, json, ms: Date.now() - started, headers: res.headers };
}

export function closeAgent() {
  agent.destroy();
}
