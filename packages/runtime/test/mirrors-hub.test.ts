/**
 * Upstream mirrors through a real hub (the runtime's `files` test kind): failover for artifacts and
 * metadata, nothing bad cached whichever mirror failed, the breaker in /metrics.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { filesKind, type FixtureUpstream, startFixtureUpstream, startTestHub } from '@hub/testkit';

const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
const BIG = crypto.randomBytes(512 * 1024);
const SMALL = Buffer.from('file a');
const ART = '/pkg/1.0.0/big.bin';

async function refusedUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

interface Setup {
  hub: Awaited<ReturnType<typeof startTestHub>>;
  mirrors: FixtureUpstream[];
  base: string;
  blobDir: string;
}

/**
 * Two fixture mirrors with the same tree (`pkg/1.0.0/{a.txt,big.bin}`, `pkg.json`), or `first` in place of
 * the first one (a refused address), and a hub whose `files` registry names them in order.
 */
async function setup(
  tt: Test,
  o: { first?: string; registry?: Record<string, unknown>; server?: Record<string, unknown> } = {},
): Promise<Setup> {
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-mirrors-hub-'));
  const mirrors: FixtureUpstream[] = [];
  for (let i = 0; i < 2; i++) {
    const root = path.join(top, `up${i}`);
    fs.mkdirSync(path.join(root, 'pkg/1.0.0'), { recursive: true });
    fs.writeFileSync(path.join(root, 'pkg/1.0.0/big.bin'), BIG);
    fs.writeFileSync(path.join(root, 'pkg/1.0.0/a.txt'), SMALL);
    fs.writeFileSync(path.join(root, 'pkg.json'), JSON.stringify({ name: 'pkg', mirror: i }));
    mirrors.push(await startFixtureUpstream({ root }));
  }
  const upstreams = [o.first ?? mirrors[0]!.url, mirrors[1]!.url];
  const hub = await startTestHub({
    dir: path.join(top, 'hub'),
    plugins: [filesKind],
    registries: [{ name: 'files', type: 'files', upstreams, metadata_ttl_secs: 0, ...o.registry }],
    config: { auth: { anonymous: ['source:read'] }, server: { headers_timeout_ms: 500, ...o.server } },
  });
  tt.teardown(async () => {
    await hub.close();
    for (const m of mirrors) await m.close();
    fs.rmSync(top, { recursive: true, force: true });
  });
  return { hub, mirrors, base: `${hub.url}/proxy/files`, blobDir: path.join(top, 'hub', 'blobs') };
}

async function get(url: string) {
  const res = await fetch(url);
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), headers: res.headers };
}

/** Each cached artifact's key and the hash of its stored blob, read back from the blob store. */
async function cached(s: Setup): Promise<Array<{ key: string; sha: string; ok: boolean }>> {
  await s.hub.hub.artifacts.idle();
  const rows = (await s.hub.hub.db('artifacts').select('cache_key', 'blob_sha256')) as Array<{
    cache_key: string;
    blob_sha256: string;
  }>;
  return rows.map((r) => {
    const file = path.join(s.blobDir, 'sha256', r.blob_sha256.slice(0, 2), r.blob_sha256.slice(2, 4), r.blob_sha256);
    const bytes = fs.existsSync(file) ? fs.readFileSync(file) : Buffer.alloc(0);
    return { key: r.cache_key, sha: r.blob_sha256, ok: sha(bytes) === r.blob_sha256 };
  });
}

async function metrics(s: Setup): Promise<string> {
  return (await get(`${s.hub.url}/metrics`)).body.toString();
}

t.test('the first mirror refuses connections: the second serves, the artifact is verified and cached', async (tt) => {
  const dead = await refusedUrl();
  const s = await setup(tt, { first: dead });
  const res = await get(`${s.base}${ART}?sha256=${sha(BIG)}`);
  tt.equal(res.status, 200);
  tt.ok(res.body.equals(BIG));
  tt.equal(s.mirrors[1]!.count(ART), 1);
  tt.match(await cached(s), [{ key: 'pkg/1.0.0/big.bin', sha: sha(BIG), ok: true }]);
  const again = await get(`${s.base}${ART}`);
  tt.equal(again.headers.get('x-hub-cache'), 'hit');
  tt.equal(s.mirrors[1]!.count(ART), 1, 'served from the cache');
  const m = await metrics(s);
  tt.match(
    m,
    new RegExp(`hub_upstream_mirror_failovers_total\\{registry="files",from="${dead}",to="${s.mirrors[1]!.url}"\\} 1`),
  );
  tt.match(
    m,
    new RegExp(`hub_upstream_mirror_state\\{registry="files",mirror="${dead}"\\} 0`),
    'one failure: still closed',
  );
});

t.test('the first mirror answers 503, then hangs: the second serves both', async (tt) => {
  const s = await setup(tt);
  const [m1, m2] = s.mirrors;
  m1!.fault(ART, { type: 'status', status: 503 });
  tt.ok((await get(`${s.base}${ART}`)).body.equals(BIG));
  m1!.fault('/pkg/1.0.0/a.txt', { type: 'hang-headers' });
  const small = await get(`${s.base}/pkg/1.0.0/a.txt`);
  tt.equal(small.status, 200);
  tt.ok(small.body.equals(SMALL));
  tt.equal(m2!.count(ART) + m2!.count('/pkg/1.0.0/a.txt'), 2);
  tt.match(await cached(s), [{ ok: true }, { ok: true }]);
});

t.test('an HTML 200 for an artifact or a document: the next mirror is used, nothing bad is cached', async (tt) => {
  const s = await setup(tt);
  const [m1, m2] = s.mirrors;
  m1!.fault(ART, { type: 'html200' });
  const res = await get(`${s.base}${ART}`);
  tt.equal(res.status, 200);
  tt.ok(res.body.equals(BIG), 'the real artifact, from the second mirror');
  tt.equal(m1!.count(ART), 1);
  tt.equal(m2!.count(ART), 1);
  tt.match(await cached(s), [{ key: 'pkg/1.0.0/big.bin', sha: sha(BIG), ok: true }]);

  m1!.fault('/pkg.json', { type: 'html200' });
  const doc = await get(`${s.base}/meta/pkg`);
  tt.equal(doc.status, 200);
  tt.same(JSON.parse(doc.body.toString()), { name: 'pkg', mirror: 1 }, "the second mirror's document");
  tt.equal(doc.headers.get('x-hub-stale'), null);
  const m = await metrics(s);
  tt.match(m, /hub_upstream_mirror_failovers_total\{registry="files",[^}]*\} 2/);
});

t.test(
  'a reset before the first bytes reached a client: retried on the next mirror within the same request',
  async (tt) => {
    const s = await setup(tt);
    const [m1, m2] = s.mirrors;
    // A 6-byte file: half of it comes before the reset, so the flight never got ready.
    m1!.fault('/pkg/1.0.0/a.txt', { type: 'reset-mid-body' });
    const res = await get(`${s.base}/pkg/1.0.0/a.txt`);
    tt.equal(res.status, 200);
    tt.ok(res.body.equals(SMALL));
    tt.equal(m2!.count('/pkg/1.0.0/a.txt'), 1);
    tt.match(await cached(s), [{ key: 'pkg/1.0.0/a.txt', sha: sha(SMALL), ok: true }]);
    tt.equal(fs.readdirSync(path.join(s.blobDir, 'tmp')).length, 0, 'no spool file left');
  },
);

t.test(
  "a 200 that fails the kind's head check (not an HTML type): the next mirror serves, nothing bad is cached",
  async (tt) => {
    const s = await setup(tt);
    const [m1, m2] = s.mirrors;
    const gz = Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), crypto.randomBytes(64)]);
    for (const root of [0, 1])
      fs.writeFileSync(path.join(path.dirname(s.blobDir), '..', `up${root}`, 'pkg/1.0.0/a.gz'), gz);
    m1!.fault('/pkg/1.0.0/a.gz', {
      type: 'status',
      status: 200,
      body: 'Service temporarily unavailable',
      headers: { 'Content-Type': 'application/octet-stream' },
    });
    const res = await get(`${s.base}/pkg/1.0.0/a.gz`);
    tt.equal(res.status, 200);
    tt.ok(res.body.equals(gz));
    tt.equal(m2!.count('/pkg/1.0.0/a.gz'), 1);
    tt.match(await cached(s), [{ key: 'pkg/1.0.0/a.gz', sha: sha(gz), ok: true }]);
  },
);

t.test(
  'a reset after bytes were streamed fails that request; nothing half-written is cached; the open breaker sends the next to the second mirror',
  async (tt) => {
    const s = await setup(tt, { server: { mirror_breaker_failures: 1 } });
    const [m1, m2] = s.mirrors;
    m1!.fault(ART, { type: 'reset-mid-body' });
    await tt.rejects(get(`${s.base}${ART}`), 'the client sees an aborted body, never a clean 200');
    tt.same(await cached(s), [], 'no row');
    tt.equal(fs.readdirSync(path.join(s.blobDir, 'tmp')).length, 0, 'no spool file left');
    tt.match(
      await metrics(s),
      new RegExp(`hub_upstream_mirror_state\\{registry="files",mirror="${m1!.url}"\\} 2`),
      'the first mirror is open',
    );
    const ok = await get(`${s.base}${ART}`);
    tt.equal(ok.status, 200);
    tt.ok(ok.body.equals(BIG));
    tt.equal(m1!.count(ART), 1, 'the open mirror is not asked');
    tt.equal(m2!.count(ART), 1);
    tt.match(await cached(s), [{ key: 'pkg/1.0.0/big.bin', sha: sha(BIG), ok: true }]);
  },
);

t.test('a digest mismatch from the first mirror is not cached and counts against it', async (tt) => {
  const s = await setup(tt, { server: { mirror_breaker_failures: 1 } });
  const [m1, m2] = s.mirrors;
  m1!.fault(ART, { type: 'wrong-bytes' });
  const res = await get(`${s.base}${ART}?sha256=${sha(BIG)}`).catch(() => null);
  tt.ok(res === null || res.status !== 200 || !res.body.equals(BIG), 'never a clean 200 of unverified bytes');
  tt.same(await cached(s), [], 'not cached');
  const ok = await get(`${s.base}${ART}?sha256=${sha(BIG)}`);
  tt.ok(ok.body.equals(BIG), 'verified the same way from the second mirror');
  tt.equal(m2!.count(ART), 1);
  tt.match(await cached(s), [{ sha: sha(BIG), ok: true }]);
});

t.test('a 404 from the first mirror is final unless fallthrough_on_404', async (tt) => {
  const strict = await setup(tt);
  strict.mirrors[0]!.fault(ART, { type: 'status', status: 404 });
  tt.equal((await get(`${strict.base}${ART}`)).status, 404);
  tt.equal(strict.mirrors[1]!.count(ART), 0);

  const lenient = await setup(tt, { registry: { fallthrough_on_404: true } });
  lenient.mirrors[0]!.fault(ART, { type: 'status', status: 404 });
  const res = await get(`${lenient.base}${ART}`);
  tt.equal(res.status, 200);
  tt.ok(res.body.equals(BIG));
  tt.equal(lenient.mirrors[1]!.count(ART), 1);
});

t.test(
  'the breaker in /metrics: open after N failures, the dead mirror not contacted, closed again after its interval',
  async (tt) => {
    const s = await setup(tt, { server: { mirror_breaker_failures: 2, mirror_breaker_open_ms: 400 } });
    const [m1, m2] = s.mirrors;
    m1!.fault('/pkg', { type: 'status', status: 502 });
    const state = async () =>
      Number(
        new RegExp(
          `hub_upstream_mirror_state\\{registry="files",mirror="${m1!.url.replace(/[.]/g, '\\.')}"\\} (\\d)`,
        ).exec(await metrics(s))?.[1],
      );
    tt.equal(await state(), 0);
    for (let i = 0; i < 2; i++) tt.equal((await get(`${s.base}/meta/pkg`)).status, 200);
    tt.equal(await state(), 2, 'open');
    for (let i = 0; i < 3; i++) tt.equal((await get(`${s.base}/meta/pkg`)).status, 200);
    tt.equal(m1!.count('/pkg'), 2, 'no request reaches the open mirror');
    tt.equal(m2!.count('/pkg'), 5);
    m1!.clearFaults();
    // Soon vs never: the interval is 400 ms, the bound is generous.
    const until = Date.now() + 20_000;
    while ((await state()) !== 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    tt.equal(await state(), 1, 'half-open after its interval');
    const doc = await get(`${s.base}/meta/pkg`);
    tt.same(
      JSON.parse(doc.body.toString()),
      { name: 'pkg', mirror: 0 },
      'the probe goes to the first mirror, which answers',
    );
    tt.equal(await state(), 0, 'closed');
  },
);
