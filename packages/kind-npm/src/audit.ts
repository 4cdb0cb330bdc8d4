/**
 * npm's audit requests (`npm install` sends one after every install, `npm audit` and `pnpm audit` too): the
 * upstream's answer when it has one, with hub's own advisories (its flags) added, never a failure
 * (decisions 0042 and 0060).
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { errors, readCapped, reply, type KindRoute, type Reply, type RequestContext } from '@hub/contract';
import { installedOf, mergeBulk, mergeTree } from './audit-advisories.js';

const inflate = promisify(gunzip);

/** The request body's cap: a bulk query names each dependency once (tens of bytes each), 10 MiB is ~100,000. */
export const MAX_AUDIT_BODY = 10 * 1024 * 1024;
/** The upstream's answer is read whole (hub's advisories are merged into it), so it has a cap too. */
const MAX_AUDIT_ANSWER = 32 * 1024 * 1024;
/** How long an upstream's refusal or failure of an audit route is remembered: no upstream call meanwhile. */
export const AUDIT_REFUSAL_TTL_MS = 60_000;
const MAX_REMEMBERED = 256;

/** `bulk`: `{name: [versions]}` (npm 7+); `quick` and `full`: npm 6's dependency tree (pnpm asks quick, then full). */
const ENDPOINTS: Record<string, string> = { bulk: 'advisories/bulk', quick: 'audits/quick', full: 'audits' };

/** A report of no advisories in npm 6's format, for the tree queries, which pnpm reads. */
const emptyTree = (): Record<string, unknown> => ({
  actions: [],
  advisories: {},
  muted: [],
  metadata: {
    vulnerabilities: { info: 0, low: 0, moderate: 0, high: 0, critical: 0 },
    dependencies: 0,
    devDependencies: 0,
    optionalDependencies: 0,
    totalDependencies: 0,
  },
});

/**
 * Upstream audit routes that refused or failed lately, by upstream and endpoint, until when. Kept per process,
 * not per hub: it is a fact about the upstream (hubs in one process in front of it learn it once), and small.
 */
const refused = new Map<string, number>();
function remember(key: string): void {
  if (refused.size >= MAX_REMEMBERED) refused.delete(refused.keys().next().value!);
  refused.set(key, Date.now() + AUDIT_REFUSAL_TTL_MS);
}
function refusedLately(key: string): boolean {
  const until = refused.get(key);
  if (until === undefined) return false;
  if (until > Date.now()) return true;
  refused.delete(key);
  return false;
}

async function readBody(rc: RequestContext): Promise<{ raw: Buffer; gzip: boolean; query: Record<string, unknown> }> {
  const tooLarge = () => errors.payloadTooLarge(`an audit request may be at most ${MAX_AUDIT_BODY} bytes`);
  if (Number(rc.headers['content-length']) > MAX_AUDIT_BODY) throw tooLarge();
  const raw = await readCapped(rc.body(), MAX_AUDIT_BODY, tooLarge);
  // npm gzips its bulk query; inflating is capped like the body.
  const gzip = /gzip/i.test(rc.headers['content-encoding'] ?? '');
  let query: unknown;
  try {
    query = JSON.parse((gzip ? await inflate(raw, { maxOutputLength: MAX_AUDIT_BODY }) : raw).toString('utf8'));
  } catch {
    throw errors.badRequest(`the audit request is not JSON, or inflates past ${MAX_AUDIT_BODY} bytes`);
  }
  if (!query || typeof query !== 'object' || Array.isArray(query))
    throw errors.badRequest('the audit request is not a JSON object');
  return { raw, gzip, query: query as Record<string, unknown> };
}

/** A bulk query's versions by name; anything else a name maps to asks about no version. */
const bulkQuery = (q: Record<string, unknown>): Record<string, string[]> =>
  Object.fromEntries(
    Object.entries(q).map(([name, v]) => [
      name,
      Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [],
    ]),
  );

/**
 * The body to send upstream, or null when none should go: a hybrid registry's own names never leave hub (the
 * query would tell the upstream what is private here), so a bulk query is sent without them, and a tree
 * query (which cannot be cut without breaking it) is not sent.
 */
async function outgoing(
  rc: RequestContext,
  endpoint: string,
  body: { raw: Buffer; gzip: boolean; query: Record<string, unknown> },
): Promise<{ body: Buffer; gzip: boolean } | null> {
  if (rc.registry.mode === 'local' || !rc.registry.upstream) return null;
  if (rc.registry.mode === 'proxy') return { body: body.raw, gzip: body.gzip };
  if (endpoint !== 'bulk') return null;
  const own = new Set(await rc.local.names());
  const kept = Object.fromEntries(Object.entries(body.query).filter(([name]) => !own.has(name)));
  return Object.keys(kept).length ? { body: Buffer.from(JSON.stringify(kept)), gzip: false } : null;
}

/** The upstream's report (a JSON object), or null when it has none now: refused, failed, or remembered as such. */
async function upstreamReport(
  rc: RequestContext,
  endpoint: string,
  out: { body: Buffer; gzip: boolean },
): Promise<Record<string, unknown> | null> {
  const key = `${rc.registry.upstream} ${endpoint}`;
  if (refusedLately(key)) return null;
  try {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (out.gzip) headers['content-encoding'] = 'gzip';
    const res = await rc.upstream.request(`${rc.registry.upstream}/-/npm/v1/security/${ENDPOINTS[endpoint]}`, {
      method: 'POST',
      headers,
      body: out.body,
      maxBytes: MAX_AUDIT_ANSWER,
    });
    if (res.status !== 200) {
      res.body.destroy();
      remember(key);
      rc.log.info(
        { status: res.status, endpoint },
        `the upstream has no npm audit here: hub's advisories only, for ${AUDIT_REFUSAL_TTL_MS / 1000} s`,
      );
      return null;
    }
    const doc = JSON.parse((await readCapped(res.body, MAX_AUDIT_ANSWER)).toString('utf8')) as unknown;
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('not a JSON object');
    return doc as Record<string, unknown>;
  } catch (e) {
    // An audit is advice: an upstream that fails it must not fail the install that sent it.
    remember(key);
    rc.log.warn(
      { err: (e as Error).message, endpoint },
      `the upstream audit failed: hub's advisories only, for ${AUDIT_REFUSAL_TTL_MS / 1000} s`,
    );
    return null;
  }
}

/** hub's advisories on these names; none when they cannot be read now (the database is down): an audit never fails for them. */
async function hubAdvisories(rc: RequestContext, names: readonly string[]) {
  try {
    return await rc.advisories(names);
  } catch (e) {
    rc.log.warn({ err: (e as Error).message }, "hub's advisories could not be read: the audit answer leaves them out");
    return [];
  }
}

async function audit(rc: RequestContext, endpoint: string): Promise<Reply> {
  const body = await readBody(rc);
  const out = await outgoing(rc, endpoint, body);
  const upstream = out ? await upstreamReport(rc, endpoint, out) : null;
  let doc: Record<string, unknown>;
  if (endpoint === 'bulk') {
    const query = bulkQuery(body.query);
    doc = mergeBulk(upstream ?? {}, query, await hubAdvisories(rc, Object.keys(query)));
  } else {
    const installed = installedOf(body.query);
    doc = mergeTree(upstream ?? emptyTree(), installed, await hubAdvisories(rc, [...installed.keys()]));
  }
  return reply.json(doc, 200, { 'cache-control': 'no-store' });
}

/** POST /-/npm/v1/security/advisories/bulk, /-/npm/v1/security/audits/quick and /-/npm/v1/security/audits. */
const auditRoute: KindRoute = {
  id: 'audit',
  methods: ['POST'],
  match(s) {
    if (s.length < 5 || s.length > 6 || s[0] !== '-' || s[1] !== 'npm' || s[2] !== 'v1' || s[3] !== 'security')
      return null;
    const endpoint = Object.keys(ENDPOINTS).find((k) => ENDPOINTS[k] === s.slice(4).join('/'));
    return endpoint ? { params: { endpoint } } : null;
  },
  handle: (rc, m) => audit(rc, m.params!.endpoint!),
};

export const auditRoutes: readonly KindRoute[] = [auditRoute];
