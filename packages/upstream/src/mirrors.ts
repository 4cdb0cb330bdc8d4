/**
 * A registry's upstream over an ordered list of mirrors (`upstreams`), each with its own client and circuit
 * breaker (docs/decisions/0022-upstream-mirrors.md). A URL under any mirror's base is asked of the mirrors in
 * order, from the first whose breaker is not open, past connection failures, timeouts, 5xx and 429 (and 404
 * with fallthrough_on_404). A response that turns out bad later (a body cut short, an HTML page, a failed
 * check) counts against its mirror, and a caller that noticed before passing a byte on asks the next mirror.
 */
import type { Logger } from 'pino';
import {
  errors,
  isHubError,
  type UpstreamClient,
  type UpstreamRequestOptions,
  type UpstreamResponse,
} from '@hub/contract';
import { redactUrl } from './client.js';

export type BreakerState = 'closed' | 'half-open' | 'open';

export interface BreakerOptions {
  /** Consecutive failures that open the breaker. */
  failures: number;
  /** How long it stays open before one request probes the mirror. */
  openMs: number;
}

/** One mirror as the health card shows it. */
export interface MirrorStatus {
  /** The metrics label: the origin (the base without credentials when two mirrors share an origin). */
  mirror: string;
  base: string;
  state: BreakerState;
  consecutive_failures: number;
  last_error: string | null;
  last_error_at: string | null;
  last_success_at: string | null;
}

export interface Mirror {
  /** Base URL without a trailing slash. */
  base: string;
  client: UpstreamClient;
}

export interface MirroredClientOptions {
  registry: string;
  /** In order of preference; at least one. */
  mirrors: readonly Mirror[];
  /** A 404/410 moves on to the next mirror instead of being the answer. */
  fallthroughOn404?: boolean;
  breaker: BreakerOptions;
  log?: Logger;
  /** A request left mirror `from` for mirror `to` (labels as in `status()`). */
  onFailover?(from: string, to: string): void;
  now?: () => number;
}

export interface MirroredClient extends UpstreamClient {
  status(): MirrorStatus[];
}

const noop = (): void => {};

class Breaker {
  private st: BreakerState = 'closed';
  failures = 0;
  private openedAt = 0;
  /** When the half-open probe under way started (0: none); a probe whose outcome never came expires after openMs. */
  private probeAt = 0;
  lastError: string | null = null;
  lastErrorAt: number | null = null;
  lastSuccessAt: number | null = null;

  constructor(
    private readonly o: BreakerOptions,
    private readonly now: () => number,
    private readonly onChange: (state: BreakerState, why: string | null) => void,
  ) {}

  /** The state now: an open breaker whose interval has passed is half-open (its next request is a probe). */
  get state(): BreakerState {
    if (this.st === 'open' && this.now() - this.openedAt >= this.o.openMs) return 'half-open';
    return this.st;
  }

  /** Whether a request may go to this mirror; claims the probe of a half-open breaker. */
  allow(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open') return false;
    this.st = 'half-open';
    if (this.probeAt !== 0 && this.now() - this.probeAt < this.o.openMs) return false;
    this.probeAt = this.now();
    return true;
  }

  success(): void {
    this.failures = 0;
    this.lastSuccessAt = this.now();
    this.probeAt = 0;
    if (this.st !== 'closed') {
      this.st = 'closed';
      this.onChange('closed', null);
    }
  }

  failure(reason: string): void {
    this.failures++;
    this.lastError = reason;
    this.lastErrorAt = this.now();
    this.probeAt = 0;
    if (this.st === 'half-open' || this.failures >= this.o.failures) {
      const was = this.st;
      this.st = 'open';
      this.openedAt = this.now();
      if (was !== 'open') this.onChange('open', reason);
    }
  }

  /** A request that ended without telling whether the mirror works (a body nobody read). */
  release(): void {
    this.probeAt = 0;
  }
}

/** The verdict on one answer, given once; a failure reported after a success takes the success back. */
function outcome(b: Breaker) {
  let settled: 'success' | 'failure' | 'neutral' | null = null;
  let failuresBefore = 0;
  return {
    success(): void {
      if (settled !== null) return;
      settled = 'success';
      failuresBefore = b.failures;
      b.success();
    },
    failure(reason: string): void {
      if (settled === 'failure') return;
      if (settled === 'success') b.failures = Math.max(b.failures, failuresBefore);
      settled = 'failure';
      b.failure(reason);
    },
    neutral(): void {
      if (settled !== null) return;
      settled = 'neutral';
      b.release();
    },
  };
}
type Outcome = ReturnType<typeof outcome>;

/** Destroying a body with no 'error' listener could raise an unhandled error. */
function discard(res: UpstreamResponse): void {
  res.body.on('error', noop);
  res.body.destroy();
}

/** A base as logs and the health card show it: no credentials, no query, no trailing slash. */
const shown = (base: string): string => redactUrl(base).replace(/\/$/, '');

const reasonOf = (e: unknown): string => (isHubError(e) || e instanceof Error ? e.message : String(e));

/** Origins label the metrics; two mirrors on one origin are told apart by their path. */
function labels(bases: readonly string[]): string[] {
  const origins = bases.map((b) => new URL(b).origin);
  return bases.map((b, i) => (origins.filter((o) => o === origins[i]).length > 1 ? shown(b) : origins[i]!));
}

export function createMirroredClient(o: MirroredClientOptions): MirroredClient {
  if (o.mirrors.length === 0) throw new Error('a mirrored upstream needs at least one mirror');
  const now = o.now ?? Date.now;
  const names = labels(o.mirrors.map((m) => m.base));
  const breakers = o.mirrors.map(
    (_, i) =>
      new Breaker(o.breaker, now, (state, why) => {
        if (state === 'open')
          o.log?.warn(
            { registry: o.registry, mirror: names[i], err: why },
            'upstream mirror breaker opened: skipped while another mirror is usable',
          );
        else o.log?.info({ registry: o.registry, mirror: names[i] }, 'upstream mirror breaker closed');
      }),
  );
  const primary = o.mirrors[0]!.client;

  /** Which mirror's base the URL lies under (the longest base wins), and the rest of it. */
  function locate(url: string): { rest: string } | null {
    let best: { len: number; rest: string } | null = null;
    for (const m of o.mirrors) {
      const b = m.base;
      if (url === b || url.startsWith(`${b}/`) || url.startsWith(`${b}?`)) {
        if (!best || b.length > best.len) best = { len: b.length, rest: url.slice(b.length) };
      }
    }
    return best && { rest: best.rest };
  }

  /** A URL outside every base (a download host the upstream names) goes to the client of its origin, else the first. */
  function clientFor(url: string): UpstreamClient {
    let origin: string;
    try {
      origin = new URL(url).origin;
    } catch {
      return primary;
    }
    return o.mirrors.find((m) => new URL(m.base).origin === origin)?.client ?? primary;
  }

  const isFailureStatus = (s: number): boolean => s >= 500 || s === 429;
  const fallsThrough = (s: number): boolean => o.fallthroughOn404 === true && (s === 404 || s === 410);

  /** Attaches the breaker's verdict to an answer that is handed out. */
  function watch(res: UpstreamResponse, method: 'GET' | 'HEAD' | 'POST', out: Outcome): void {
    const hasBody = method === 'GET' && res.status >= 200 && res.status < 300 && res.status !== 204;
    if (!hasBody) return out.success();
    // A body is judged when it ends: complete is a success, an error (reset, truncation, timeout) a failure.
    res.body.once('end', () => out.success());
    res.body.once('error', (e: unknown) => out.failure(reasonOf(e)));
    res.body.once('close', () => queueMicrotask(() => out.neutral()));
  }

  /**
   * Asks the mirrors not in `tried`, in order, skipping open breakers; with `force`, when every breaker is
   * open the first untried mirror is asked anyway. Returns the first usable answer, or the last failure.
   */
  async function run(
    rest: string,
    ro: UpstreamRequestOptions,
    tried: Set<number>,
    from: number | null,
    force: boolean,
  ): Promise<UpstreamResponse> {
    const method = ro.method ?? 'GET';
    let last: { res: UpstreamResponse } | { err: unknown } | null = null;
    let prev = from;
    const attempt = async (i: number): Promise<UpstreamResponse | null> => {
      tried.add(i);
      if (prev !== null && prev !== i) o.onFailover?.(names[prev]!, names[i]!);
      prev = i;
      if (last && 'res' in last) discard(last.res);
      const out = outcome(breakers[i]!);
      let res: UpstreamResponse;
      try {
        res = await o.mirrors[i]!.client.request(o.mirrors[i]!.base + rest, ro);
      } catch (e) {
        out.failure(reasonOf(e));
        last = { err: e };
        return null;
      }
      if (isFailureStatus(res.status)) {
        out.failure(`status ${res.status}`);
        last = { res };
        return null;
      }
      if (fallsThrough(res.status)) {
        out.success();
        last = { res };
        return null;
      }
      watch(res, method, out);
      return decorate(res, out, rest, ro, tried, i);
    };
    for (let i = 0; i < o.mirrors.length; i++) {
      if (tried.has(i) || !breakers[i]!.allow()) continue;
      const res = await attempt(i);
      if (res) return res;
    }
    if (last === null) {
      // Every breaker is open: ask rather than fail without asking.
      const first = o.mirrors.findIndex((_, i) => !tried.has(i));
      if (first !== -1 && (force || tried.size === 0)) {
        const res = await attempt(first);
        if (res) return res;
      }
    }
    const end = last as { res: UpstreamResponse } | { err: unknown } | null;
    if (end === null) throw errors.upstream(`every upstream mirror of registry ${o.registry} has been tried`);
    if ('err' in end) throw end.err;
    return end.res;
  }

  function decorate(
    res: UpstreamResponse,
    out: Outcome,
    rest: string,
    ro: UpstreamRequestOptions,
    tried: Set<number>,
    i: number,
  ): UpstreamResponse {
    const decorated: UpstreamResponse = { ...res, reportBad: (reason) => out.failure(reason) };
    const untried = o.mirrors.some((_, j) => !tried.has(j));
    if (untried && o.mirrors.length > 1) {
      decorated.tryNextMirror = async (reason) => {
        out.failure(reason);
        discard(res);
        o.log?.warn(
          { registry: o.registry, mirror: names[i], err: reason },
          'upstream mirror answered unusably; asking the next mirror',
        );
        return run(rest, ro, tried, i, true);
      };
    }
    return decorated;
  }

  return {
    async request(url, ro = {}) {
      const at = locate(url);
      if (!at) return clientFor(url).request(url, ro);
      return run(at.rest, ro, new Set(), null, false);
    },
    status: () =>
      o.mirrors.map((m, i) => {
        const b = breakers[i]!;
        const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
        return {
          mirror: names[i]!,
          base: shown(m.base),
          state: b.state,
          consecutive_failures: b.failures,
          last_error: b.lastError,
          last_error_at: iso(b.lastErrorAt),
          last_success_at: iso(b.lastSuccessAt),
        };
      }),
    async close() {
      await Promise.all(o.mirrors.map((m) => m.client.close()));
    },
  };
}
