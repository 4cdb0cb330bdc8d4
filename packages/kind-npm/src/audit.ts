/**
 * npm's audit requests (`npm install` sends one after every install, `npm audit` and `pnpm audit` too):
 * answered by the upstream when it has them, else with a report of no advisories, never a failure (decision 0042).
 */
import { gunzipSync } from 'node:zlib';
import { errors, readCapped, reply, type KindRoute, type Reply, type RequestContext } from '@hub/contract';

/** The request body's cap: a bulk query names each dependency once (tens of bytes each), 10 MiB is ~100,000. */
export const MAX_AUDIT_BODY = 10 * 1024 * 1024;
/** The upstream's answer is read whole, so it has a cap too. */
const MAX_AUDIT_ANSWER = 32 * 1024 * 1024;

/** `bulk`: `{name: [versions]}` (npm 7+); `quick` and `full`: npm 6's dependency tree (pnpm asks quick, then full). */
const ENDPOINTS: Record<string, string> = { bulk: 'advisories/bulk', quick: 'audits/quick', full: 'audits' };

/** A report of no advisories in each endpoint's format: npm 6's for the tree queries, which pnpm reads. */
const NO_ADVISORIES: Record<string, unknown> = {
  bulk: {},
  tree: {
    actions: [],
    advisories: {},
    muted: [],
    metadata: { vulnerabilities: { info: 0, low: 0, moderate: 0, high: 0, critical: 0 }, dependencies: 0, devDependencies: 0, optionalDependencies: 0, totalDependencies: 0 },
  },
};
const empty = (endpoint: string) => reply.json(NO_ADVISORIES[endpoint === 'bulk' ? 'bulk' : 'tree'], 200, { 'cache-control': 'no-store' });

async function readBody(rc: RequestContext): Promise<Buffer> {
  const tooLarge = () => errors.payloadTooLarge(`an audit request may be at most ${MAX_AUDIT_BODY} bytes`);
  if (Number(rc.headers['content-length']) > MAX_AUDIT_BODY) throw tooLarge();
  return readCapped(rc.body(), MAX_AUDIT_BODY, tooLarge);
}

/**
 * The body to send upstream, or null when none should go: a hybrid registry's own names never leave hub (the
 * query would tell the upstream what is private here), so a bulk query is sent without them, and a tree
 * query (which cannot be cut without breaking it) is not sent.
 */
async function outgoing(rc: RequestContext, endpoint: string, raw: Buffer): Promise<{ body: Buffer; gzip: boolean } | null> {
  const gzip = /gzip/i.test(rc.headers['content-encoding'] ?? '');
  if (rc.registry.mode === 'proxy') return { body: raw, gzip };
  if (endpoint !== 'bulk') return null;
  let query: unknown;
  try {
    query = JSON.parse((gzip ? gunzipSync(raw, { maxOutputLength: MAX_AUDIT_BODY }) : raw).toString('utf8'));
  } catch {
    throw errors.badRequest(`the audit request is not JSON, or inflates past ${MAX_AUDIT_BODY} bytes`);
  }
  if (!query || typeof query !== 'object' || Array.isArray(query)) throw errors.badRequest('the audit request is not a JSON object');
  const own = new Set(await rc.local.names());
  const kept = Object.fromEntries(Object.entries(query).filter(([name]) => !own.has(name)));
  return Object.keys(kept).length ? { body: Buffer.from(JSON.stringify(kept)), gzip: false } : null;
}

async function audit(rc: RequestContext, endpoint: string): Promise<Reply> {
  const raw = await readBody(rc);
  if (rc.registry.mode === 'local' || !rc.registry.upstream) return empty(endpoint);
  const out = await outgoing(rc, endpoint, raw);
  if (!out) return empty(endpoint);
  try {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (out.gzip) headers['content-encoding'] = 'gzip';
    const res = await rc.upstream.request(`${rc.registry.upstream}/-/npm/v1/security/${ENDPOINTS[endpoint]}`, { method: 'POST', headers, body: out.body, maxBytes: MAX_AUDIT_ANSWER });
    if (res.status !== 200) {
      res.body.destroy();
      rc.log.info({ status: res.status, endpoint }, 'the upstream has no npm audit here: answering an empty report');
      return empty(endpoint);
    }
    const answer = await readCapped(res.body, MAX_AUDIT_ANSWER);
    const doc = JSON.parse(answer.toString('utf8')) as unknown;
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('not a JSON object');
    return reply.bytes(answer, 'application/json', { 'cache-control': 'no-store' });
  } catch (e) {
    // An audit is advice: an upstream that fails it must not fail the install that sent it.
    rc.log.warn({ err: (e as Error).message, endpoint }, 'the upstream audit failed: answering an empty report');
    return empty(endpoint);
  }
}

/** POST /-/npm/v1/security/advisories/bulk, /-/npm/v1/security/audits/quick and /-/npm/v1/security/audits. */
const auditRoute: KindRoute = {
  id: 'audit',
  methods: ['POST'],
  match(s) {
    if (s.length < 5 || s.length > 6 || s[0] !== '-' || s[1] !== 'npm' || s[2] !== 'v1' || s[3] !== 'security') return null;
    const endpoint = Object.keys(ENDPOINTS).find((k) => ENDPOINTS[k] === s.slice(4).join('/'));
    return endpoint ? { params: { endpoint } } : null;
  },
  handle: (rc, m) => audit(rc, m.params!.endpoint!),
};

export const auditRoutes: readonly KindRoute[] = [auditRoute];
