/**
 * Warming: each entry hub does not hold yet is fetched through hub's own registry routes (`/proxy/<registry>/...`),
 * as a client would, so the cache, verification, blocks, cool-down and the audit log apply (decision 0059). Used by
 * `hub warm` (over HTTP, with the caller's token) and by the check route's `warm: true` (over the hub's own socket,
 * with the caller's credentials). Imports nothing of the runtime, so the CLI loads it cheaply.
 */

/** One GET of a path on the hub (starting with `/`); the body is drained by the caller. */
export type HubGet = (
  path: string,
  accept?: string,
) => Promise<{ status: number; body: AsyncIterable<Uint8Array>; json(): Promise<unknown> }>;

export interface WarmEntry {
  ecosystem: string;
  name: string;
  version: string;
  registry: string | null;
  status: string;
  reason?: string;
  digests: string[];
  paths: string[];
}

export type WarmOutcome = 'fetched' | 'already_held' | 'refused' | 'failed';

export interface WarmResult {
  entry: WarmEntry;
  outcome: WarmOutcome;
  bytes: number;
  detail?: string;
}

export interface WarmSummary {
  entries: number;
  fetched: number;
  already_held: number;
  refused: number;
  failed: number;
  bytes: number;
  seconds: number;
}

/** PEP 691: the JSON form of a project page, with each file's hashes. */
const PYPI_JSON = 'application/vnd.pypi.simple.v1+json';

async function pypiPaths(get: HubGet, e: WarmEntry): Promise<string[]> {
  const sha256 = new Set(e.digests.filter((d) => d.startsWith('sha256:')).map((d) => d.slice(7)));
  const res = await get(`/proxy/${encodeURIComponent(e.registry!)}/simple/${encodeURIComponent(e.name)}/`, PYPI_JSON);
  if (res.status !== 200) {
    for await (const _ of res.body); // drain
    throw new Error(`the project page answered HTTP ${res.status}`);
  }
  const doc = (await res.json()) as { files?: Array<{ url?: unknown; hashes?: { sha256?: unknown } }> };
  return (doc.files ?? []).flatMap((f) =>
    typeof f.url === 'string' && typeof f.hashes?.sha256 === 'string' && sha256.has(f.hashes.sha256)
      ? [new URL(f.url, 'http://hub.invalid/').pathname]
      : [],
  );
}

async function fetchOne(get: HubGet, e: WarmEntry): Promise<WarmResult> {
  let paths = e.paths.map((p) => `/proxy/${encodeURIComponent(e.registry!)}/${p}`);
  if (paths.length === 0 && e.ecosystem === 'pypi') paths = await pypiPaths(get, e);
  if (paths.length === 0)
    return { entry: e, outcome: 'refused', bytes: 0, detail: 'hub found no file of this version to fetch' };
  let bytes = 0;
  for (const p of paths) {
    const res = await get(p);
    if (res.status >= 200 && res.status < 300) {
      for await (const chunk of res.body) bytes += chunk.byteLength;
      continue;
    }
    let detail = `HTTP ${res.status}`;
    try {
      const body = (await res.json()) as { error?: { code?: unknown; message?: unknown } };
      if (typeof body.error?.message === 'string') detail = `${String(body.error.code)}: ${body.error.message}`;
    } catch {
      // not the hub's error format
    }
    return { entry: e, outcome: res.status >= 500 ? 'failed' : 'refused', bytes, detail };
  }
  return { entry: e, outcome: 'fetched', bytes };
}

/** Fetches each `fetchable` entry, at most `concurrency` at a time; `onResult` sees each result as it comes (progress). */
export async function warmEntries(
  entries: readonly WarmEntry[],
  get: HubGet,
  o: { concurrency: number; onResult?: (r: WarmResult, done: number) => void },
): Promise<{ results: WarmResult[]; summary: WarmSummary }> {
  const started = Date.now();
  const results: WarmResult[] = new Array(entries.length);
  let next = 0;
  let done = 0;
  const one = async (e: WarmEntry): Promise<WarmResult> => {
    if (e.status === 'held') return { entry: e, outcome: 'already_held', bytes: 0 };
    if (e.status !== 'fetchable')
      return { entry: e, outcome: 'refused', bytes: 0, detail: `${e.status}${e.reason ? `: ${e.reason}` : ''}` };
    try {
      return await fetchOne(get, e);
    } catch (err) {
      return { entry: e, outcome: 'failed', bytes: 0, detail: (err as Error).message.slice(0, 300) };
    }
  };
  const worker = async () => {
    while (next < entries.length) {
      const i = next++;
      results[i] = await one(entries[i]!);
      o.onResult?.(results[i]!, ++done);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(o.concurrency, entries.length)) }, worker));
  const count = (k: WarmOutcome) => results.filter((r) => r.outcome === k).length;
  const summary: WarmSummary = {
    entries: entries.length,
    fetched: count('fetched'),
    already_held: count('already_held'),
    refused: count('refused'),
    failed: count('failed'),
    bytes: results.reduce((n, r) => n + r.bytes, 0),
    seconds: Math.round((Date.now() - started) / 10) / 100,
  };
  return { results, summary };
}
