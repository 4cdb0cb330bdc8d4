import type { UpstreamClient } from './upstream.js';
import { readCapped } from './read-capped.js';
import { probeAnswer } from './reply.js';
import type { ProbeAnswer } from './kind.js';

/** A GET names the most it reads of a 2xx body (past it the answer is a failure, status 0); a HEAD reads none. */
export type ProbeFetchOptions = { headers?: Record<string, string> } & (
  { method?: 'GET'; maxBytes: number } | { method: 'HEAD'; maxBytes?: number }
);

export interface ProbeFetchResult {
  /** 0 when nothing usable came back: a transport failure, a timeout, a body past `maxBytes`. */
  status: number;
  /** The whole body of a 2xx GET; empty otherwise (other bodies are not read). */
  body: Buffer;
  contentType?: string;
  /** Why the status is 0. */
  error?: string;
}

/**
 * One upstream request of a probe ladder, never throwing: `probeAnswer(status)` reads a failure as
 * inconclusive, never absent. The body is capped twice over: refused from Content-Length, and cut off
 * while read.
 */
export async function probeFetch(
  upstream: UpstreamClient,
  url: string,
  o: ProbeFetchOptions,
): Promise<ProbeFetchResult> {
  try {
    if (o.method === 'HEAD') {
      const res = await upstream.request(url, { method: 'HEAD', headers: o.headers });
      res.body.destroy();
      return { status: res.status, body: Buffer.alloc(0), contentType: res.headers['content-type'] };
    }
    const res = await upstream.request(url, { headers: o.headers, maxBytes: o.maxBytes });
    const contentType = res.headers['content-type'];
    if (res.status < 200 || res.status >= 300) {
      res.body.destroy();
      return { status: res.status, body: Buffer.alloc(0), contentType };
    }
    return { status: res.status, body: await readCapped(res.body, o.maxBytes), contentType };
  } catch (e) {
    return { status: 0, body: Buffer.alloc(0), error: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * Whether the upstream has a package at `url` (its listing document): a GET whose body is not read. 2xx
 * present, 404/410 absent, anything else (a 5xx, a timeout, a transport failure) inconclusive. What a
 * kind's `nameProbe` asks.
 */
export async function probeListing(
  upstream: UpstreamClient,
  url: string,
  headers?: Record<string, string>,
): Promise<Exclude<ProbeAnswer, 'not_audited'>> {
  try {
    const res = await upstream.request(url, { headers });
    res.body.destroy();
    return probeAnswer(res.status);
  } catch {
    return 'inconclusive';
  }
}
