/**
 * Unit-test helpers for a kind's group merges (`group.merge`, decision 0053): the request context a merge is
 * called with, and members' answers. Only what a merge may use is real (base URL, headers, query, log); every
 * other member of the context throws, so a merge that reaches for the network or the store fails its test.
 */
import type { GroupAsk, GroupPart, Mode, RequestContext } from '@hub/runtime';

export interface MergeContextOptions {
  /** The group registry the merge runs for (default `group` of type `test`). */
  registry?: { name: string; type: string };
  baseUrl?: string;
  headers?: Record<string, string>;
  query?: string;
}

export interface MergeContext {
  /** `any` config: a merge of any kind takes it. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each kind's merge reads its own config type
  rc: RequestContext<any>;
  /** What the merge logged at warn level (a member's malformed body, say). */
  warnings: string[];
}

export function mergeContext(opts: MergeContextOptions = {}): MergeContext {
  const warnings: string[] = [];
  const log = {
    warn: (_obj: unknown, msg?: string) => void warnings.push(msg ?? String(_obj)),
    info: () => {},
    debug: () => {},
    error: () => {},
    child() {
      return log;
    },
  };
  const base: Partial<RequestContext> = {
    registry: {
      name: opts.registry?.name ?? 'group',
      type: opts.registry?.type ?? 'test',
      mode: 'group',
      metadataTtlSecs: 60,
      config: {},
    },
    baseUrl: opts.baseUrl ?? 'http://hub.test/proxy/group',
    method: 'GET',
    anonymousRead: true,
    headers: opts.headers ?? {},
    query: new URLSearchParams(opts.query ?? ''),
    log: log as unknown as RequestContext['log'],
  };
  const rc = new Proxy(base, {
    get(target, key) {
      if (key in target) return target[key as keyof RequestContext];
      if (typeof key === 'symbol' || key === 'then') return undefined;
      throw new Error(`a group merge used rc.${key}, which a merge has no business with`);
    },
  }) as RequestContext;
  return { rc, warnings };
}

/** One member's 200 answer. */
export function groupPart(
  member: string,
  body: Buffer | string,
  opts: { headers?: Record<string, string>; mode?: Exclude<Mode, 'group'> } = {},
): GroupPart {
  return {
    member,
    mode: opts.mode ?? 'proxy',
    status: 200,
    headers: opts.headers ?? {},
    body: Buffer.isBuffer(body) ? body : Buffer.from(body),
  };
}

/** A `GroupAsk` answering from a table of `segments.join('/')` (and `?query`) to members' answers; records what was asked. */
export function tableAsk(table: Record<string, readonly GroupPart[]>): { ask: GroupAsk; asked: string[] } {
  const asked: string[] = [];
  const ask: GroupAsk = async (segments, query) => {
    const q = query?.toString();
    const key = segments.join('/') + (q ? `?${q}` : '');
    asked.push(key);
    return table[key] ?? [];
  };
  return { ask, asked };
}
