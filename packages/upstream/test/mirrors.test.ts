/**
 * The mirrored upstream client on its own: real clients, loopback fixture mirrors, a test clock for the
 * breakers' intervals. The hub-level behaviour (artifact and metadata caches) is in mirrors-hub.test.ts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { readCapped, type UpstreamResponse } from '@hub/contract';
import { startFixtureUpstream, type FixtureUpstream } from '@hub/testkit';
import { createUpstreamClient } from '../src/client.js';
import { createMirroredClient, type MirroredClientOptions } from '../src/mirrors.js';

const BIG = crypto.randomBytes(256 * 1024);

/** Two (or more) mirrors serving the same tree below `/<prefix>`: `pkg/a.txt` and `pkg/big.bin`. */
async function mirrors(tt: Test, n = 2, prefixes: string[] = []): Promise<FixtureUpstream[]> {
  const out: FixtureUpstream[] = [];
  for (let i = 0; i < n; i++) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-mirror-test-'));
    const pkg = path.join(root, prefixes[i] ?? '', 'pkg');
    fs.mkdirSync(pkg, { recursive: true });
    fs.writeFileSync(path.join(pkg, 'a.txt'), `file a from mirror ${i}`);
    fs.writeFileSync(path.join(pkg, 'big.bin'), BIG);
    const up = await startFixtureUpstream({ root });
    tt.teardown(async () => {
      await up.close();
      fs.rmSync(root, { recursive: true, force: true });
    });
    out.push(up);
  }
  return out;
}

/** A loopback port nothing listens on: connections are refused. */
async function refusedUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

interface Harness {
  client: ReturnType<typeof createMirroredClient>;
  failovers: Array<[string, string]>;
  /** The breakers' clock, in ms; tests move it. */
  clock: { now: number };
}

function mirrored(tt: Test, bases: string[], o: Partial<MirroredClientOptions> = {}): Harness {
  const failovers: Array<[string, string]> = [];
  const clock = { now: 1_000_000 };
  const client = createMirroredClient({
    registry: 'r',
    mirrors: bases.map((base) => ({
      base,
      client: createUpstreamClient({
        origin: base,
        userAgent: 'hub/test',
        forbiddenNetworks: [],
        headersTimeoutMs: 300,
        trustedOrigins: bases,
      }),
    })),
    breaker: { failures: 3, openMs: 30_000 },
    onFailover: (from, to) => failovers.push([from, to]),
    now: () => clock.now,
    ...o,
  });
  tt.teardown(() => client.close());
  return { client, failovers, clock };
}

const text = async (res: UpstreamResponse): Promise<string> => (await readCapped(res.body, 1 << 20)).toString();
const stateOf = (h: Harness) => h.client.status().map((s) => s.state);

t.test('a first mirror that refuses connections: the second answers, and the failover is counted', async (tt) => {
  const [m2] = await mirrors(tt, 1);
  const dead = await refusedUrl();
  const h = mirrored(tt, [dead, m2!.url]);
  const res = await h.client.request(`${dead}/pkg/a.txt`);
  tt.equal(res.status, 200);
  tt.equal(await text(res), 'file a from mirror 0', 'served by the second mirror (its own tree)');
  tt.equal(m2!.count('/pkg/a.txt'), 1);
  tt.same(h.failovers, [[dead, m2!.url]]);
  const [first, second] = h.client.status();
  tt.equal(first!.consecutive_failures, 1);
  tt.match(first!.last_error, /upstream request failed/);
  tt.equal(second!.consecutive_failures, 0);
  tt.type(second!.last_success_at, 'string', 'a body read to its end is a success');
});

t.test('5xx and 429 move on; when every mirror fails, the last answer is returned', async (tt) => {
  const [m1, m2, m3] = await mirrors(tt, 3);
  m1!.fault('/pkg/a.txt', { type: 'status', status: 503 });
  m2!.fault('/pkg/a.txt', { type: 'status', status: 429 });
  const h = mirrored(tt, [m1!.url, m2!.url, m3!.url]);
  const res = await h.client.request(`${m1!.url}/pkg/a.txt`);
  tt.equal(res.status, 200);
  tt.equal(await text(res), 'file a from mirror 2');
  tt.same(h.failovers, [
    [m1!.url, m2!.url],
    [m2!.url, m3!.url],
  ]);
  m3!.fault('/pkg/a.txt', { type: 'status', status: 502 });
  const all = await h.client.request(`${m1!.url}/pkg/a.txt`);
  tt.equal(all.status, 502, "the last mirror's answer");
  tt.equal(all.tryNextMirror, undefined, 'no mirror left to try');
  all.body.destroy();
  tt.same(
    h.client.status().map((s) => s.consecutive_failures),
    [2, 2, 1],
  );
});

t.test('a first mirror that never sends headers: the second answers once the headers timeout passes', async (tt) => {
  const [m1, m2] = await mirrors(tt);
  m1!.fault('/pkg/a.txt', { type: 'hang-headers' });
  const h = mirrored(tt, [m1!.url, m2!.url]);
  const res = await h.client.request(`${m1!.url}/pkg/a.txt`);
  tt.equal(await text(res), 'file a from mirror 1');
  tt.match(h.client.status()[0]!.last_error, /response headers in time/);
});

t.test('a 404 is the answer unless fallthrough_on_404', async (tt) => {
  const [m1, m2] = await mirrors(tt);
  m1!.fault('/pkg/a.txt', { type: 'status', status: 404 });
  const strict = mirrored(tt, [m1!.url, m2!.url]);
  const res = await strict.client.request(`${m1!.url}/pkg/a.txt`);
  tt.equal(res.status, 404, 'final from the first mirror');
  res.body.destroy();
  tt.equal(m2!.count('/pkg/a.txt'), 0, 'the second mirror is not asked');
  tt.same(strict.client.status()[0]!.consecutive_failures, 0, 'a 404 is not a failure of the mirror');

  const lenient = mirrored(tt, [m1!.url, m2!.url], { fallthroughOn404: true });
  const through = await lenient.client.request(`${m1!.url}/pkg/a.txt`);
  tt.equal(through.status, 200);
  tt.equal(await text(through), 'file a from mirror 1');
  tt.same(stateOf(lenient), ['closed', 'closed'], 'falling through opens nothing');
  m2!.fault('/pkg/a.txt', { type: 'status', status: 410 });
  const gone = await lenient.client.request(`${m1!.url}/pkg/a.txt`);
  tt.equal(gone.status, 410, 'absent everywhere: the last answer');
  gone.body.destroy();
});

t.test(
  'mirror bases with paths: a URL under any base is asked of the first mirror first; others go to their origin unchanged',
  async (tt) => {
    const [m1, m2] = await mirrors(tt, 2, ['one', 'two']);
    const b1 = `${m1!.url}/one`;
    const b2 = `${m2!.url}/two`;
    const h = mirrored(tt, [b1, b2]);
    const res = await h.client.request(`${b2}/pkg/a.txt`);
    tt.equal(
      await text(res),
      'file a from mirror 0',
      "a URL named by the second mirror's documents is asked of the first",
    );
    tt.equal(m2!.count(), 0);
    m1!.fault('/one/pkg/a.txt', { type: 'status', status: 500 });
    tt.equal(
      await text(await h.client.request(`${b1}/pkg/a.txt?x=1`)),
      'file a from mirror 1',
      'the rest (query included) moves with it',
    );
    tt.equal(m2!.count('/two/pkg/a.txt?x=1'), 1);
    const outside = await h.client.request(`${m2!.url}/pkg/a.txt`);
    tt.equal(outside.status, 404, 'outside every base: asked as is');
    outside.body.destroy();
    tt.equal(m2!.count('/pkg/a.txt'), 1, 'of the client of its own origin');
    tt.equal(m1!.count('/pkg/a.txt'), 0);
    tt.equal(h.client.status()[0]!.consecutive_failures, 1, 'outside every base: no breaker is touched');
  },
);

t.test(
  'breaker: opens after N failures, the mirror is no longer asked, half-opens after its interval and closes on success',
  async (tt) => {
    const [m1, m2] = await mirrors(tt);
    m1!.fault('/pkg/', { type: 'status', status: 503 });
    const h = mirrored(tt, [m1!.url, m2!.url], { breaker: { failures: 3, openMs: 30_000 } });
    for (let i = 0; i < 3; i++)
      tt.equal(await text(await h.client.request(`${m1!.url}/pkg/a.txt`)), 'file a from mirror 1');
    tt.equal(m1!.count('/pkg/'), 3);
    tt.same(stateOf(h), ['open', 'closed']);
    for (let i = 0; i < 5; i++) await text(await h.client.request(`${m1!.url}/pkg/a.txt`));
    tt.equal(m1!.count('/pkg/'), 3, 'an open mirror is not asked');
    tt.equal(m2!.count('/pkg/'), 8);

    h.clock.now += 30_000;
    tt.same(stateOf(h), ['half-open', 'closed'], 'after the interval, the next request probes');
    await text(await h.client.request(`${m1!.url}/pkg/a.txt`));
    tt.equal(m1!.count('/pkg/'), 4, 'one probe');
    tt.same(stateOf(h), ['open', 'closed'], 'a failed probe opens it again at once');
    await text(await h.client.request(`${m1!.url}/pkg/a.txt`));
    tt.equal(m1!.count('/pkg/'), 4);

    h.clock.now += 30_000;
    m1!.clearFaults();
    tt.equal(await text(await h.client.request(`${m1!.url}/pkg/a.txt`)), 'file a from mirror 0', 'the probe succeeds');
    tt.same(stateOf(h), ['closed', 'closed']);
    tt.equal(h.client.status()[0]!.consecutive_failures, 0);
    tt.equal(
      await text(await h.client.request(`${m1!.url}/pkg/a.txt`)),
      'file a from mirror 0',
      'and the first mirror serves again',
    );
  },
);

t.test('every breaker open: the first mirror is asked anyway, not a failure without asking', async (tt) => {
  const [m1, m2] = await mirrors(tt);
  m1!.fault('/pkg/', { type: 'status', status: 503 });
  m2!.fault('/pkg/', { type: 'status', status: 503 });
  const h = mirrored(tt, [m1!.url, m2!.url], { breaker: { failures: 1, openMs: 30_000 } });
  (await h.client.request(`${m1!.url}/pkg/a.txt`)).body.destroy();
  tt.same(stateOf(h), ['open', 'open']);
  const res = await h.client.request(`${m1!.url}/pkg/a.txt`);
  tt.equal(res.status, 503);
  res.body.destroy();
  tt.equal(m1!.count('/pkg/'), 2, 'asked again');
  tt.equal(m2!.count('/pkg/'), 1);
  m1!.clearFaults();
  tt.equal(await text(await h.client.request(`${m1!.url}/pkg/a.txt`)), 'file a from mirror 0');
  tt.same(stateOf(h), ['closed', 'open'], 'its success closes it');
});

t.test(
  'a body that fails counts against its mirror; reportBad takes a success back; tryNextMirror asks the next one',
  async (tt) => {
    const [m1, m2] = await mirrors(tt);
    const h = mirrored(tt, [m1!.url, m2!.url]);
    m1!.fault('/pkg/big.bin', { type: 'reset-mid-body' }, 1);
    const cut = await h.client.request(`${m1!.url}/pkg/big.bin`);
    tt.equal(cut.status, 200, 'the headers were fine');
    await tt.rejects(readCapped(cut.body, 1 << 20), 'the body fails');
    tt.equal(h.client.status()[0]!.consecutive_failures, 1, 'and that is a failure of the first mirror');

    const good = await h.client.request(`${m1!.url}/pkg/big.bin`);
    tt.ok((await readCapped(good.body, 1 << 20)).equals(BIG));
    tt.equal(h.client.status()[0]!.consecutive_failures, 0, 'a complete body is a success');
    good.reportBad!('sha256 mismatch');
    tt.equal(
      h.client.status()[0]!.consecutive_failures,
      2,
      'reported bad later: the success is taken back and counted as a failure',
    );
    tt.equal(h.client.status()[0]!.last_error, 'sha256 mismatch');
    good.reportBad!('again');
    tt.equal(h.client.status()[0]!.consecutive_failures, 2, 'one answer counts once');

    const first = await h.client.request(`${m1!.url}/pkg/a.txt`);
    tt.type(first.tryNextMirror, 'function', 'a mirror is left to try');
    const next = await first.tryNextMirror!('an HTML page');
    tt.equal(await text(next), 'file a from mirror 1');
    tt.equal(next.tryNextMirror, undefined, 'none left after the last');
    tt.equal(h.client.status()[0]!.consecutive_failures, 3);
    tt.same(stateOf(h), ['open', 'closed'], 'bad answers open the breaker like transport failures');
    tt.same(h.failovers, [[m1!.url, m2!.url]]);
  },
);

t.test('a single upstream: no failover, answers pass through, the breaker is only reported', async (tt) => {
  const [m1] = await mirrors(tt, 1);
  const h = mirrored(tt, [m1!.url], { breaker: { failures: 1, openMs: 30_000 } });
  m1!.fault('/pkg/a.txt', { type: 'status', status: 500 }, 1);
  const res = await h.client.request(`${m1!.url}/pkg/a.txt`);
  tt.equal(res.status, 500);
  tt.equal(res.tryNextMirror, undefined);
  res.body.destroy();
  tt.same(stateOf(h), ['open']);
  tt.equal(
    await text(await h.client.request(`${m1!.url}/pkg/a.txt`)),
    'file a from mirror 0',
    'an open breaker on the only mirror still lets requests through',
  );
  tt.same(stateOf(h), ['closed']);
  tt.equal(h.client.status()[0]!.base, m1!.url);
});
