/**
 * The fault plan (#12): two hub replicas (real `hub serve` processes) on a private MariaDB, an S3-protocol server
 * and a private Redis, behind nginx, with a bounded load generator running through nginx while each dependency
 * fails. Reports per fault: requests sent, errors clients saw, time to recover, bytes verified (t.comment, and JSON
 * at $HUB_FAULT_REPORT when set).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import type { Test } from 'tap';
import { Redis } from 'ioredis';
import { createDb } from '@hub/runtime/internal';
import { missingTools, sleep, startMariadb, startNginx, startRedis, startS3, S3_BUCKET, waitFor } from './infra.js';
import { addReports, closeAgent, get, jsonRequest, type Job, type LoadReport, runLoad } from './load.js';
import {
  ADMIN_TOKEN,
  BREAKER_OPEN_MS,
  createReplica,
  FETCH_LEASE_SECS,
  MIRRORED,
  REGISTRY,
  type Replica,
} from './replicas.js';
import { BIG, sha256Of, startUpstream } from './upstream.js';
import { missingClient } from '@hub/testkit';

interface FaultReport extends LoadReport {
  fault: string;
  /** Milliseconds from the dependency's return (or, for a killed replica, from the kill) until service was whole. */
  recover_ms: number | null;
  notes: string[];
}

const missing = missingTools();
const skip = missing.length
  ? missingClient(missing.join(', '), 'the fault plan needs them; .ci/run installs them')
  : false;

const file = (name: string): Job => ({
  path: `/proxy/${REGISTRY}/${name}`,
  expect: { status: 200, sha256: sha256Of(name) },
});
const refused = (name: string): Job => ({ path: `/proxy/${REGISTRY}/${name}`, expect: { status: 403 } });
const SMALL = Array.from({ length: 16 }, (_, i) => `small-${i}.bin`);
const BLOCKED = 'blocked.bin';
/** The fetch_leases row's id for an artifact (sha256 of registry and cache key; a generic file's key is its path). */
const leaseId = (registry: string, key: string) =>
  crypto.createHash('sha256').update(`${registry}\0${key}`).digest('hex');

t.test('fault plan: two replicas behind nginx on MariaDB, S3 and Redis (#12)', { skip }, async (t) => {
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-fault-plan-'));
  const reports: FaultReport[] = [];
  const stops: Array<() => Promise<unknown>> = [];
  t.teardown(async () => {
    closeAgent();
    // Reverse start order: nginx, replicas, then what they use.
    for (const stop of stops.reverse()) await stop().catch(() => {});
    if (process.env.HUB_FAULT_KEEP) t.comment(`kept ${top}`);
    else fs.rmSync(top, { recursive: true, force: true });
  });

  // `bad` is the first mirror of MIRRORED: the same files as `upstream`, until fault 5 makes it misbehave.
  const [mariadb, redis, s3, upstream, bad] = await Promise.all([
    startMariadb(path.join(top, 'mariadb')),
    startRedis(path.join(top, 'redis')),
    startS3(path.join(top, 's3')),
    startUpstream(),
    startUpstream(),
  ]);
  stops.push(
    () => upstream.close(),
    () => bad.close(),
    mariadb.stop,
    redis.stop,
    s3.stop,
  );
  const admin = createDb({ client: 'mysql', url: mariadb.url('') });
  await admin.raw('CREATE DATABASE hub CHARACTER SET utf8mb4 COLLATE utf8mb4_bin').finally(() => admin.destroy());
  // The test's own view of the database (reconnects after a restart) and of Redis.
  const db = createDb({ client: 'mysql', url: mariadb.url('hub') });
  const rds = new Redis({
    port: redis.port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
  });
  rds.on('error', () => {});
  stops.push(
    async () => rds.disconnect(),
    () => db.destroy(),
  );

  const shared = {
    databaseUrl: mariadb.url('hub'),
    s3Endpoint: s3.endpoint,
    bucket: S3_BUCKET,
    redisUrl: `redis://127.0.0.1:${redis.port}`,
    upstream: upstream.url,
    badMirror: bad.url,
  };
  const replicas = await Promise.all(['a', 'b'].map((n) => createReplica(top, n, shared)));
  const [a, b] = replicas as [Replica, Replica];
  // Both at once: they migrate one empty database together (the named migration lock).
  await Promise.all(replicas.map((r) => r.start()));
  stops.push(...replicas.map((r) => () => r.stop()));
  const nginx = await startNginx(
    path.join(top, 'nginx'),
    replicas.map((r) => r.port),
  );
  stops.push(nginx.stop);
  const lb = nginx.url;
  const byPort = (addr: string | undefined) => replicas.find((r) => addr?.endsWith(`:${r.port}`));
  const rowOf = (name: string) =>
    db('artifacts').where({ registry: REGISTRY, package_name: 'repo', version: name }).first('blob_sha256', 'size');

  /**
   * Every object in the bucket hashes to its name and none is an HTML page; every artifact row (of every registry)
   * names an object of its size holding the upstream's bytes for that file.
   */
  async function storeIsConsistent(t: Test) {
    const objects = new Map<string, number>();
    const badObjects: string[] = [];
    const htmlObjects: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith('._S3rver_object')) {
          const bytes = fs.readFileSync(p);
          const name = e.name.slice(0, -'._S3rver_object'.length);
          if (crypto.createHash('sha256').update(bytes).digest('hex') !== name) badObjects.push(name);
          if (/<(!doctype|html)/i.test(bytes.subarray(0, 512).toString('latin1'))) htmlObjects.push(name);
          objects.set(name, bytes.length);
        }
      }
    };
    walk(s3.objectsDir);
    const rows = (await db('artifacts').select('registry', 'version', 'blob_sha256', 'size')) as Array<{
      registry: string;
      version: string;
      blob_sha256: string;
      size: number;
    }>;
    const badRows = rows
      .filter((r) => objects.get(r.blob_sha256) !== Number(r.size) || r.blob_sha256 !== sha256Of(r.version))
      .map((r) => `${r.registry}/${r.version}`);
    t.ok(objects.size > 0 && rows.length > 0, `${objects.size} S3 objects, ${rows.length} rows`);
    t.same(badObjects, [], 'every S3 object hashes to its name');
    t.same(htmlObjects, [], 'no S3 object is an HTML page');
    t.same(badRows, [], "every row names an object of its size holding the upstream's bytes");
    return { objects: objects.size, rows: rows.length };
  }

  await t.test(
    '1. kill -9 the replica holding the fetch lease mid-download: one upstream fetch served both replicas; retrying clients succeed through the survivor, which fetches again once the lease lapses; nothing half-written is served',
    async (t) => {
      const notes: string[] = [];
      const fetches = () => upstream.count(`/${BIG}`);
      const fetchesBefore = fetches();
      const bigHeaders: Array<{ replica: Replica | undefined; cache: string | undefined; at: number }> = [];
      // Four downloads of the large file at once (nginx alternates: two on each replica), then the small files.
      const jobs = [file(BIG), file(BIG), file(BIG), file(BIG), ...SMALL.map(file)];
      const load = runLoad({
        base: lb,
        jobs,
        concurrency: 4,
        retries: 4,
        deadlineMs: 90_000,
        onHeaders(job, res) {
          if (job.path.endsWith(BIG) && res.statusCode === 200)
            bigHeaders.push({
              replica: byPort(res.headers['x-upstream'] as string | undefined),
              cache: res.headers['x-hub-cache'] as string | undefined,
              at: Date.now(),
            });
        },
      });
      const bothServing = await waitFor(
        'both replicas serve the large file',
        async () => new Set(bigHeaders.map((h) => h.replica)).size === 2,
        20_000,
        20,
      ).catch(() => false);
      t.ok(bothServing, 'clients through nginx download the large file from both replicas at once');
      t.equal(fetches() - fetchesBefore, 1, 'while it downloads, one upstream fetch serves both replicas');
      const leaseKey = { id: leaseId(REGISTRY, BIG) };
      const lease = (await db('fetch_leases').where(leaseKey).first()) as
        { owner: string; expires_at: number } | undefined;
      t.ok(lease, 'a fetch lease row is held for it');
      const ownerRow =
        lease &&
        ((await db('replicas').where({ id: lease.owner }).first('internal_url', 'pid')) as
          { internal_url: string; pid: number } | undefined);
      const victim = replicas.find((r) => r.url === ownerRow?.internal_url);
      t.ok(
        victim && victim.proc()?.pid === ownerRow?.pid,
        `the lease's owner is replica ${victim?.name} (its heartbeat row's internal_url and pid)`,
      );
      if (!victim || !lease) {
        await load;
        return;
      }
      const survivor = victim === a ? b : a;
      const cacheOn = (r: Replica) =>
        [...new Set(bigHeaders.filter((h) => h.replica === r).map((h) => h.cache))].sort();
      t.same(cacheOn(survivor), ['peer'], `${survivor.name} streams it from ${victim.name} (x-hub-cache: peer)`);
      t.ok(
        cacheOn(victim).every((c) => c === 'miss' || c === 'coalesced'),
        `${victim.name} fetches it (x-hub-cache: ${cacheOn(victim).join(', ')})`,
      );

      // Mid-download: the 32 MiB body takes about 3 s to come from the upstream.
      await sleep(Math.max(0, bigHeaders[0]!.at + 800 - Date.now()));
      const killedAt = Date.now();
      await victim.kill();
      notes.push(
        `replica ${victim.name} (holding the fetch lease) killed ${((killedAt - bigHeaders[0]!.at) / 1000).toFixed(1)} s into the 32 MiB download, ${survivor.name} streaming it from ${victim.name}`,
      );

      // The dead owner renews nothing: within fetch_lease_secs the survivor (whose clients retry) takes the lease over.
      const lapsed = await waitFor(
        "the dead replica's lease lapses",
        async () => {
          const row = (await db('fetch_leases').where(leaseKey).first()) as { owner: string } | undefined;
          return !row || row.owner !== lease.owner ? { owner: row?.owner ?? null, at: Date.now() } : false;
        },
        (FETCH_LEASE_SECS + 15) * 1000,
        25,
      ).catch(() => undefined);
      const survivorId = (
        (await db('replicas').where({ internal_url: survivor.url }).first('id')) as { id: string } | undefined
      )?.id;
      t.ok(
        lapsed && (lapsed.owner === null || lapsed.owner === survivorId),
        `the dead replica's lease is gone or held by ${survivor.name} (${lapsed ? (lapsed.owner ? 'taken over' : 'gone') : 'still held'})`,
      );
      const lapseMs = lapsed ? lapsed.at - killedAt : null;
      t.ok(
        lapseMs !== null && lapseMs <= (FETCH_LEASE_SECS + 3) * 1000,
        `within fetch_lease_secs (${FETCH_LEASE_SECS} s) and a margin: ${lapseMs} ms after the kill`,
      );

      const { report, results } = await load;
      const bigResults = results.filter((r) => r.job.path.endsWith(BIG));
      const cut = bigResults.flatMap((r) => r.attempts).filter((x) => x.error !== undefined);
      t.ok(
        cut.length >= 1,
        `the downloads running at the kill were cut (${cut.map((x) => `${byPort(x.replica)?.name ?? '?'}: ${x.error}`).join('; ')})`,
      );
      t.equal(report.client_errors, 0, 'every client that retried got its file');
      t.equal(report.corrupt, 0, 'no client got a corrupt body with a 200: nothing half-written was served');
      const after = bigResults
        .flatMap((r) => r.attempts)
        .filter((x) => x.at > killedAt && x.status === 200 && x.error === undefined);
      t.ok(
        after.length >= 1 && after.every((x) => byPort(x.replica) === survivor),
        'the large file was served whole by the survivor after the kill',
      );
      const recover = after.length ? Math.min(...after.map((x) => x.at + x.ms)) - killedAt : null;
      t.equal(
        fetches() - fetchesBefore,
        2,
        "two upstream fetches in all: the one cut by the kill, and the survivor's once the lease lapsed",
      );
      notes.push(
        `lease gone or taken over ${lapseMs} ms after the kill; ${fetches() - fetchesBefore} upstream fetches of the large file; ${cut.length} cut downloads (${cut.filter((x) => byPort(x.replica) === survivor).length} of them ${survivor.name}'s stream from ${victim.name})`,
      );

      // Afterwards: the survivor serves everything (from the store, verified), and nothing stored is corrupt.
      const wrong: string[] = [];
      for (const name of [BIG, ...SMALL])
        if ((await get(`${survivor.url}/proxy/${REGISTRY}/${name}`)).sha256 !== sha256Of(name)) wrong.push(name);
      t.same(wrong, [], `the survivor serves all ${SMALL.length + 1} files whole`);
      const store = await storeIsConsistent(t);
      notes.push(`${store.objects} S3 objects and ${store.rows} rows checked after the kill`);

      // The killed replica comes back; its half-written spool is ignored: it serves the stored blob.
      await victim.start();
      const back = await get(`${victim.url}/proxy/${REGISTRY}/${BIG}`, {}, (res) =>
        t.equal(res.headers['x-hub-cache'], 'hit', 'the restarted replica answers from the store'),
      );
      t.equal(back.sha256, sha256Of(BIG), 'the restarted replica serves the large file whole');
      t.equal(fetches() - fetchesBefore, 2, 'without fetching it again');
      reports.push({
        fault: 'kill -9 the replica holding the fetch lease, mid-download',
        ...report,
        recover_ms: recover,
        notes,
      });
    },
  );

  await t.test(
    '2. database down: cached unblocked files are served from memos (to anonymous readers and token holders), a blocked one and a revoked token stay refused, writes answer 503; all recovers without a restart',
    async (t) => {
      const notes: string[] = [];
      const blocked = await jsonRequest(`${lb}/api/v1/admin/blocks`, {
        method: 'POST',
        token: ADMIN_TOKEN,
        body: { registry: REGISTRY, package_name: 'repo', path: BLOCKED, reason: 'fault plan' },
      });
      t.equal(blocked.status, 201, `the block is added (${blocked.text.slice(0, 200)})`);
      // A token holder (issue 26): its token and a revoked one are used on both replicas before the outage.
      t.equal(
        (
          await jsonRequest(`${lb}/api/v1/admin/users`, {
            method: 'POST',
            token: ADMIN_TOKEN,
            body: { id: 'ci-reader', roles: ['reader'] },
          })
        ).status,
        201,
      );
      const mint = async () =>
        (
          await jsonRequest(`${lb}/api/v1/admin/tokens`, {
            method: 'POST',
            token: ADMIN_TOKEN,
            body: { user_id: 'ci-reader' },
          })
        ).json as { id: string; token: string };
      const [holder, leaver] = [await mint(), await mint()];
      for (const r of replicas)
        for (const tk of [holder, leaver])
          t.equal(
            (await get(`${r.url}/proxy/${REGISTRY}/${SMALL[0]}`, { authorization: `Bearer ${tk.token}` })).status,
            200,
            `${r.name} knows the token`,
          );
      t.equal(
        (await jsonRequest(`${lb}/api/v1/admin/tokens/${leaver.id}`, { method: 'DELETE', token: ADMIN_TOKEN })).status,
        200,
        'one token is revoked through one replica',
      );
      for (const r of replicas)
        await waitFor(
          `${r.name} refuses the revoked token`,
          async () =>
            (await get(`${r.url}/proxy/${REGISTRY}/${SMALL[0]}`, { authorization: `Bearer ${leaver.token}` }))
              .status === 401,
          5_000,
          100,
        );
      const asHolder = (job: Job): Job => ({ ...job, token: holder.token });
      const revoked = (name: string): Job => ({
        path: `/proxy/${REGISTRY}/${name}`,
        expect: { status: 401 },
        token: leaver.token,
      });
      // Warm both replicas: the files they will serve during the outage, and the refusal.
      for (const r of replicas) {
        const wrong: string[] = [];
        for (const name of [BIG, ...SMALL])
          if ((await get(`${r.url}/proxy/${REGISTRY}/${name}`)).sha256 !== sha256Of(name)) wrong.push(name);
        t.same(wrong, [], `${r.name} serves every file before the outage`);
        // A block made on one replica holds on the other within about a second (the policy memo).
        await waitFor(
          `${r.name} refuses ${BLOCKED}`,
          async () => (await get(`${r.url}/proxy/${REGISTRY}/${BLOCKED}`)).status === 403,
          5_000,
          100,
        );
      }

      await mariadb.stop();
      const stoppedAt = Date.now();
      // Past every memo's freshness (one second): what follows is answered from memos or not at all.
      await sleep(1_500);
      const jobs = [...SMALL, ...SMALL].flatMap((name, i) =>
        i % 4 === 0
          ? [file(name), refused(BLOCKED), file(BIG), asHolder(refused(BLOCKED)), revoked(name)]
          : [file(name), asHolder(file(name))],
      );
      const { report } = await runLoad({ base: lb, jobs, concurrency: 4, retries: 2, deadlineMs: 60_000 });
      t.equal(
        report.client_errors,
        0,
        'cached, unblocked files are served while the database is down, to anonymous readers and token holders',
      );
      t.equal(
        report.refusals_broken,
        0,
        'the blocked file is refused on every request, and the revoked token too (fail closed)',
      );
      t.equal(report.corrupt, 0);

      for (const r of replicas) {
        const write = await jsonRequest(`${r.url}/api/v1/admin/blocks`, {
          method: 'POST',
          token: ADMIN_TOKEN,
          body: { registry: REGISTRY, package_name: 'repo', path: 'other.bin' },
          timeoutMs: 20_000,
        });
        t.equal(write.status, 503, `${r.name}: an admin write answers 503 (${write.text.slice(0, 200)})`);
        t.equal(write.json?.error?.code, 'service_unavailable', `${r.name}: with the error format's code`);
        t.ok(write.ms < 5_000, `${r.name}: quickly (${write.ms} ms), not a hang`);
        const miss = await jsonRequest(`${r.url}/proxy/${REGISTRY}/db-miss.bin`, { timeoutMs: 20_000 });
        t.equal(miss.status, 503, `${r.name}: a file never seen answers 503 (${miss.text.slice(0, 200)})`);
        t.equal(miss.json?.error?.code, 'service_unavailable');
        t.equal((await jsonRequest(`${r.url}/readyz`)).status, 503, `${r.name}: not ready`);
        t.equal((await jsonRequest(`${r.url}/healthz`)).status, 200, `${r.name}: alive`);
      }
      notes.push(`database down ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s`);

      await mariadb.start();
      const restartedAt = Date.now();
      let recoveredAt = 0;
      const recovered = await waitFor(
        'new misses and admin writes succeed on both replicas',
        async () => {
          for (const r of replicas) {
            const miss = await get(`${r.url}/proxy/${REGISTRY}/db-miss.bin`);
            if (miss.sha256 !== sha256Of('db-miss.bin')) return false;
            const write = await jsonRequest(`${r.url}/api/v1/admin/blocks`, {
              method: 'POST',
              token: ADMIN_TOKEN,
              body: { registry: REGISTRY, package_name: 'repo', path: `other-${r.name}.bin` },
            });
            if (write.status !== 201) return false;
          }
          recoveredAt = Date.now();
          return true;
        },
        15_000,
        100,
      );
      t.ok(recovered, 'recovered without restarting a replica');
      const recover = recoveredAt - restartedAt;
      t.ok(recover < 5_000, `within 5 s of the database's return (${recover} ms)`);
      for (const r of replicas)
        t.equal((await get(`${r.url}/proxy/${REGISTRY}/${BLOCKED}`)).status, 403, `${r.name} still refuses ${BLOCKED}`);
      reports.push({
        fault: 'database stopped (kill -9 mariadbd, restarted on the same data)',
        ...report,
        recover_ms: recover,
        notes,
      });
    },
  );

  await t.test(
    '3. S3 down: hot files served from memory, others 503 quickly, a miss is not recorded as cached; recovery without a restart',
    async (t) => {
      const notes: string[] = [];
      // Hot on both replicas (warmed in fault 2); the large file is never kept in memory.
      await s3.stop();
      const stoppedAt = Date.now();
      const { report } = await runLoad({
        base: lb,
        jobs: [...SMALL, ...SMALL].map(file),
        concurrency: 4,
        retries: 2,
        deadlineMs: 60_000,
      });
      t.equal(report.client_errors, 0, 'hot small files are served from memory while S3 is down');
      t.equal(report.corrupt, 0);
      for (const r of replicas) {
        const big = await jsonRequest(`${r.url}/proxy/${REGISTRY}/${BIG}`, { timeoutMs: 20_000 });
        t.equal(big.status, 503, `${r.name}: the large file answers 503 (${big.text.slice(0, 200)})`);
        t.equal(big.json?.error?.code, 'service_unavailable');
        t.ok(big.ms < 5_000, `${r.name}: quickly (${big.ms} ms)`);
      }
      const miss = await get(`${a.url}/proxy/${REGISTRY}/s3-miss.bin`);
      notes.push(`a miss during the outage answered ${miss.status}${miss.error ? ` (${miss.error})` : ''}`);
      if (miss.status === 200)
        t.equal(miss.sha256, sha256Of('s3-miss.bin'), 'a miss streamed from the upstream is whole');
      else t.equal(miss.status, 503, 'or answers 503');
      await sleep(500);
      t.notOk(await rowOf('s3-miss.bin'), 'the miss is not recorded as cached');
      notes.push(`S3 down ${((Date.now() - stoppedAt) / 1000).toFixed(1)} s`);

      await s3.start();
      const restartedAt = Date.now();
      await waitFor(
        'the large file is served again through nginx',
        async () => (await get(`${lb}/proxy/${REGISTRY}/${BIG}`)).sha256 === sha256Of(BIG),
        15_000,
        100,
      );
      const recover = Date.now() - restartedAt;
      const fetched = upstream.count(`/s3-miss.bin`);
      t.equal(
        (await get(`${a.url}/proxy/${REGISTRY}/s3-miss.bin`)).sha256,
        sha256Of('s3-miss.bin'),
        'the miss is served after S3 returns',
      );
      t.equal(upstream.count(`/s3-miss.bin`), fetched + 1, 'it was fetched again (it had not been stored)');
      const row = await waitFor('the miss is stored', () => rowOf('s3-miss.bin'), 10_000);
      t.equal(row.blob_sha256, sha256Of('s3-miss.bin'), 'and now it is stored, under its hash');
      await storeIsConsistent(t);
      reports.push({
        fault: 'S3 server stopped (kill -9, restarted on the same data)',
        ...report,
        recover_ms: recover,
        notes,
      });
    },
  );

  await t.test(
    '4. Redis down with rate_store = "redis": requests are let through (fail open, logged); counted in Redis again once it returns',
    async (t) => {
      const notes: string[] = [];
      const keys = async () => (await rds.keys('hub:rate:*').catch(() => [] as string[])).sort();
      await rds.connect().catch(() => {});
      await get(`${lb}/proxy/${REGISTRY}/${SMALL[0]}`);
      t.ok((await keys()).length >= 1, `requests are counted in Redis (${(await keys()).join(', ')})`);

      await redis.stop();
      const { report } = await runLoad({
        base: lb,
        jobs: [...SMALL, ...SMALL].map(file),
        concurrency: 4,
        retries: 2,
        deadlineMs: 60_000,
      });
      t.equal(report.client_errors, 0, 'requests are served while Redis is down');
      t.equal(report.attempt_errors, 0, 'not one refused');
      for (const r of replicas) {
        // Log lines are written in batches (every 250 ms), so the line may still be on its way.
        const logged = await waitFor(
          'the fail-open warning',
          async () => /rate limiter: Redis failed; requests are let through until it answers/.test(r.log()),
          5_000,
        ).catch(() => false);
        t.ok(logged, `${r.name} logs that the rate limiter fails open`);
        const metrics = await (await fetch(`${r.url}/metrics`)).text();
        const errors = Number(/^hub_rate_limit_store_errors_total (\d+)/m.exec(metrics)?.[1] ?? 0);
        t.ok(errors > 0, `${r.name} counts the store's failures (${errors})`);
      }

      await redis.start();
      const restartedAt = Date.now();
      await rds.connect().catch(() => {});
      await waitFor(
        'requests are counted in Redis again',
        async () => {
          await get(`${lb}/proxy/${REGISTRY}/${SMALL[1]}`);
          return (await keys()).length >= 1;
        },
        15_000,
        100,
      );
      const recover = Date.now() - restartedAt;
      const [key] = await keys();
      // 200 requests in well under the time the bucket needs to refill them (100 a second): the bucket is below its burst.
      await runLoad({
        base: lb,
        jobs: Array.from({ length: 200 }, (_, i) => file(SMALL[i % SMALL.length]!)),
        concurrency: 8,
        retries: 0,
        deadlineMs: 30_000,
      });
      const tokens = Number(await rds.hget(key!, 'tokens'));
      t.ok(tokens < 10_000, `the shared bucket counts the requests again (${Math.round(tokens)} of 10000 tokens left)`);
      notes.push(`Redis failures counted and logged at warn; ${report.requests} requests let through`);
      reports.push({
        fault: 'Redis stopped (rate_store = "redis", rate_store_failure = "open")',
        ...report,
        recover_ms: recover,
        notes,
      });
    },
  );

  await t.test(
    '5. a bad first mirror (hangs, resets mid-body, answers HTML 200) before a healthy one: clients get their files, nothing bad is cached, the breaker shows in /metrics and the health card',
    async (t) => {
      const label = bad.url; // the breaker's mirror label: the mirror's origin
      const stateRe = new RegExp(`^hub_upstream_mirror_state\\{registry="${MIRRORED}",mirror="${label}"\\} (\\d)`, 'm');
      const failoversRe = new RegExp(
        `^hub_upstream_mirror_failovers_total\\{registry="${MIRRORED}",from="${label}",to="${upstream.url}"\\} (\\d+)`,
        'm',
      );
      const metricsOf = async (r: Replica) => (await jsonRequest(`${r.url}/metrics`)).text;
      const breakerOf = async (r: Replica) => {
        const metrics = await metricsOf(r);
        const card = await jsonRequest(`${r.url}/api/v1/admin/health`, { token: ADMIN_TOKEN });
        const mirrors = (
          card.json?.registries as
            | Array<{
                name: string;
                upstream_mirrors?: { mirrors: Array<{ mirror: string; state: string; last_error: string | null }> };
              }>
            | undefined
        )?.find((x) => x.name === MIRRORED)?.upstream_mirrors?.mirrors;
        const first = mirrors?.find((m) => m.mirror === label);
        return {
          metric: Number(stateRe.exec(metrics)?.[1] ?? NaN),
          failovers: Number(failoversRe.exec(metrics)?.[1] ?? 0),
          health: first?.state,
          lastError: first?.last_error ?? null,
        };
      };
      const HTML_PAGE =
        '<!DOCTYPE html>\n<html><head><title>Maintenance</title></head><body>Back soon.</body></html>\n';
      const modes = [
        {
          mode: 'hang',
          fault: 'bad first mirror hangs (accepts, never answers)',
          concurrency: 8,
          make: () => bad.fault('/', { type: 'hang-headers' }),
        },
        {
          mode: 'reset',
          fault: 'bad first mirror resets mid-body',
          concurrency: 4,
          make: () => bad.fault('/', { type: 'reset-mid-body' }),
        },
        {
          mode: 'html',
          fault: 'bad first mirror answers HTML 200',
          concurrency: 4,
          // Half as text/html, half as an HTML page labelled application/octet-stream (caught by the head check).
          make: () => {
            bad.fault(/[02468]\.bin$/, { type: 'html200' });
            bad.fault(/[13579]\.bin$/, {
              type: 'status',
              status: 200,
              body: HTML_PAGE,
              headers: { 'Content-Type': 'application/octet-stream' },
            });
          },
        },
      ];
      let heals = 0;
      for (const m of modes) {
        await t.test(`bad mirror: ${m.mode}`, async (t) => {
          const notes: string[] = [];
          const names = Array.from({ length: 24 }, (_, i) => `m-${m.mode}-${i}.bin`);
          const before = await Promise.all(replicas.map(breakerOf));
          t.ok(
            before.every((x) => x.metric === 0 && x.health === 'closed'),
            `the bad mirror's breaker starts closed on both replicas (${before.map((x) => `${x.metric}/${x.health}`).join(', ')})`,
          );
          m.make();
          const faultAt = Date.now();
          // Watch both replicas' breakers while the load runs: an open breaker turns half-open after BREAKER_OPEN_MS.
          const seen = replicas.map((_, i) => ({
            metricOpenAt: 0,
            healthOpen: false,
            lastError: null as string | null,
            failovers: before[i]!.failovers,
          }));
          let watching = true;
          const watch = async () => {
            const states = await Promise.all(replicas.map((r) => breakerOf(r).catch(() => undefined)));
            states.forEach((x, i) => {
              const s = seen[i]!;
              if (!x) return;
              if (x.metric === 2 && !s.metricOpenAt) s.metricOpenAt = Date.now();
              if (x.health === 'open') s.healthOpen = true;
              s.lastError = x.lastError ?? s.lastError;
              s.failovers = Math.max(s.failovers, x.failovers);
            });
          };
          const watcher = (async () => {
            while (watching) {
              await watch();
              await sleep(100);
            }
          })();
          const upstreamBefore = upstream.count((r) => r.url.startsWith(`/m-${m.mode}-`));
          const { report } = await runLoad({
            base: lb,
            jobs: names.map((n) => ({ path: `/proxy/${MIRRORED}/${n}`, expect: { status: 200, sha256: sha256Of(n) } })),
            concurrency: m.concurrency,
            retries: 6,
            deadlineMs: 60_000,
          });
          watching = false;
          await watcher;
          await watch();

          t.equal(
            report.client_errors,
            0,
            `every client got its file (${report.attempt_errors} failed attempts retried)`,
          );
          t.equal(report.corrupt, 0, 'no client got a wrong body with a 200');
          const asked = bad.count((r) => r.url.startsWith(`/m-${m.mode}-`));
          t.ok(asked >= 1, `the bad mirror was asked (${asked} requests)`);
          t.ok(
            upstream.count((r) => r.url.startsWith(`/m-${m.mode}-`)) - upstreamBefore >= names.length,
            'the healthy mirror served every file',
          );
          seen.forEach((s, i) => {
            const r = replicas[i]!;
            t.ok(
              s.metricOpenAt > 0,
              `${r.name}: hub_upstream_mirror_state{registry="${MIRRORED}",mirror="${label}"} reached 2 (open)`,
            );
            t.ok(
              s.healthOpen,
              `${r.name}: the health card's upstream_mirrors showed it open (last_error: ${s.lastError})`,
            );
          });
          const openedMs = seen.every((s) => s.metricOpenAt)
            ? Math.max(...seen.map((s) => s.metricOpenAt)) - faultAt
            : null;

          // Nothing bad cached: each file is served whole by both replicas, and the store holds only right bytes.
          const wrong: string[] = [];
          for (const r of replicas)
            for (const n of names)
              if ((await get(`${r.url}/proxy/${MIRRORED}/${n}`)).sha256 !== sha256Of(n)) wrong.push(`${r.name}:${n}`);
          t.same(wrong, [], `both replicas serve all ${names.length} files whole from the cache`);
          const store = await storeIsConsistent(t);

          // The bad mirror heals: once the breaker's interval passes, a request probes it and the breaker closes.
          bad.clearFaults();
          const healedAt = Date.now();
          let closedAt = 0;
          const closed = await waitFor(
            'the breaker closes on both replicas',
            async () => {
              const states = await Promise.all(
                replicas.map(async (r) => {
                  const n = `heal-${heals++}.bin`;
                  const got = await get(`${r.url}/proxy/${MIRRORED}/${n}`);
                  if (got.sha256 !== sha256Of(n))
                    throw new Error(`${r.name}: ${n} answered ${got.status} ${got.error ?? ''}`);
                  return breakerOf(r);
                }),
              );
              closedAt = Date.now();
              return states.every((x) => x.metric === 0 && x.health === 'closed');
            },
            BREAKER_OPEN_MS + 15_000,
            200,
          ).catch(() => false);
          t.ok(closed, 'after the bad mirror heals, its breaker closes again on both replicas (metrics and health)');
          const recover = closed ? closedAt - healedAt : null;
          notes.push(
            `breakers open on both replicas ${openedMs} ms after the fault began; bad mirror asked ${asked} times; failovers to the healthy mirror ${seen.map((s, i) => `${replicas[i]!.name} ${s.failovers - before[i]!.failovers}`).join(', ')}; last_error "${seen[0]!.lastError}"; ${store.objects} S3 objects and ${store.rows} rows checked; recovery = from the mirror's healing to both breakers closed`,
          );
          reports.push({ fault: m.fault, ...report, recover_ms: recover, notes });
        });
      }
    },
  );

  await t.test(
    '6. SIGTERM one replica under load (taking it out of the load balancer): its running download finishes whole, nginx sends every new request to the other, it exits 0 and rejoins',
    async (t) => {
      const notes: string[] = [];
      // A download of the stored large file whose client stops reading at once, so it is still running at the SIGTERM.
      let resume!: () => void;
      const headers = new Promise<http.IncomingMessage>((resolveHeaders, fail) => {
        const req = http.get(`${lb}/proxy/${REGISTRY}/${BIG}`, { agent: false }, resolveHeaders);
        req.on('error', fail);
      });
      const res = await headers;
      res.pause();
      const slow = new Promise<{ sha256: string; bytes: number; error?: string }>((resolve) => {
        const hash = crypto.createHash('sha256');
        let bytes = 0;
        res.on('data', (c: Buffer) => ((bytes += c.length), hash.update(c)));
        res.on('error', (e) => resolve({ sha256: '', bytes, error: e.message }));
        res.on('aborted', () => resolve({ sha256: '', bytes, error: 'aborted' }));
        res.on('end', () =>
          resolve(res.complete ? { sha256: hash.digest('hex'), bytes } : { sha256: '', bytes, error: 'incomplete' }),
        );
        resume = () => res.resume();
      });
      const draining = byPort(res.headers['x-upstream'] as string | undefined);
      t.ok(draining, `the download runs on replica ${draining?.name}`);
      if (!draining) {
        res.destroy();
        return;
      }
      const other = draining === a ? b : a;
      const proc = draining.proc()!;
      const termAt = Date.now();
      const stopping = draining.stop();
      await sleep(200);
      // The download goes on while the load runs; both well within shutdown_grace_ms.
      resume();
      const { report, results } = await runLoad({
        base: lb,
        jobs: [...SMALL, ...SMALL].map(file),
        concurrency: 4,
        retries: 2,
        deadlineMs: 30_000,
      });
      t.equal(report.client_errors, 0, 'requests through nginx during the drain all succeed');
      const answeredBy = new Set(results.flatMap((r) => r.attempts).map((x) => byPort(x.replica)?.name ?? x.replica));
      t.same([...answeredBy], [other.name], `nginx sent them all to ${other.name}`);
      const done = await slow;
      const doneMs = Date.now() - termAt;
      t.equal(
        done.sha256,
        sha256Of(BIG),
        `the download running at the SIGTERM finished whole (${done.bytes} bytes${done.error ? `, ${done.error}` : ''})`,
      );
      await stopping;
      t.equal(await proc.exited, 0, `${draining.name} exited 0 after draining`);
      notes.push(
        `the download ${draining.name} was serving finished whole ${doneMs} ms after SIGTERM (its client paused for the first 200 ms); ${draining.name} exited ${Date.now() - termAt} ms after SIGTERM`,
      );

      const restartAt = Date.now();
      await draining.start();
      notes.push(`restarted: /readyz 200 after ${Date.now() - restartAt} ms`);
      const back = await waitFor(
        `nginx sends requests to ${draining.name} again`,
        async () => byPort((await get(`${lb}/proxy/${REGISTRY}/${SMALL[0]}`)).replica) === draining,
        15_000,
        50,
      ).catch(() => false);
      t.ok(back, `${draining.name} serves through nginx again after its restart`);
      reports.push({
        fault: 'SIGTERM one replica (leaving the load balancer)',
        ...report,
        bytes_verified: report.bytes_verified + (done.sha256 === sha256Of(BIG) ? done.bytes : 0),
        requests: report.requests + 1,
        recover_ms: back ? Date.now() - restartAt : null,
        notes,
      });
    },
  );

  const total = addReports(...reports);
  for (const r of reports)
    t.comment(
      `${r.fault}: ${r.requests} requests, ${r.attempt_errors} failed attempts (retried), ${r.client_errors} client errors, recovered in ${r.recover_ms ?? '-'} ms, ${(r.bytes_verified / 1048576).toFixed(1)} MiB verified${r.notes.length ? `; ${r.notes.join('; ')}` : ''}`,
    );
  t.comment(`total: ${total.requests} requests, ${(total.bytes_verified / 1048576).toFixed(1)} MiB verified`);
  if (process.env.HUB_FAULT_REPORT)
    fs.writeFileSync(process.env.HUB_FAULT_REPORT, `${JSON.stringify({ faults: reports, total }, null, 2)}\n`);
});
