/**
 * Audit-log export end to end (issue 30, decision 0065): rows written by real requests reach a real syslog
 * receiver over TCP and over TLS as RFC 5424 messages in octet-counting frames (parsed here), and a JSON-lines
 * file; a hub stopped while its receiver is down delivers those rows after its restart, each exactly once.
 * On SQLite and on MariaDB.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import t, { type Test } from 'tap';
import admin from '@hub/admin';
import { createDb } from '@hub/runtime/internal';
import { hubOnDatabase, makeTestCa, startTestHub, storeTiers, type StoreDatabase } from '@hub/testkit';
import { closedPort, eventually } from './run-hub.js';

interface Message {
  pri: number;
  version: string;
  timestamp: string;
  appName: string;
  msgId: string;
  sd: Record<string, string>;
  body: Record<string, any>;
}

/** Parses one RFC 5424 message as hub writes it: header, one SD element (escapes undone), BOM, JSON. */
function parse5424(m: string): Message {
  const head =
    /^<(\d{1,3})>(1) (\S+) (\S+) (\S+) (\S+) (\S+) \[hub@32473((?: [^= \]"]+="(?:[^"\\\]]|\\["\\\]])*")*)\] \ufeff([^]*)$/.exec(
      m,
    );
  if (!head) throw new Error(`not an RFC 5424 message as hub writes them: ${m.slice(0, 200)}`);
  const sd: Record<string, string> = {};
  for (const p of head[8]!.matchAll(/ ([^= \]"]+)="((?:[^"\\\]]|\\["\\\]])*)"/g))
    sd[p[1]!] = p[2]!.replace(/\\(["\\\]])/g, '$1');
  return {
    pri: Number(head[1]),
    version: head[2]!,
    timestamp: head[3]!,
    appName: head[5]!,
    msgId: head[7]!,
    sd,
    body: JSON.parse(head[9]!),
  };
}

/** A syslog receiver (RFC 6587 octet counting) over TCP, or TLS with `tlsCert`, on `port` (0: any). */
async function syslogReceiver(t: Test, port = 0, tlsCert?: { cert: string; key: string }) {
  const messages: Message[] = [];
  const sockets = new Set<net.Socket>();
  const onSocket = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    let buf = Buffer.alloc(0);
    s.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        const sp = buf.indexOf(0x20);
        if (sp < 0) return;
        const len = Number(buf.subarray(0, sp).toString('ascii'));
        if (!Number.isInteger(len) || len <= 0)
          throw new Error(`bad frame length "${buf.subarray(0, sp).toString('latin1')}"`);
        if (buf.length < sp + 1 + len) return;
        messages.push(parse5424(buf.subarray(sp + 1, sp + 1 + len).toString('utf8')));
        buf = buf.subarray(sp + 1 + len);
      }
    });
  };
  const server = tlsCert
    ? tls.createServer({ cert: tlsCert.cert, key: tlsCert.key }, onSocket)
    : net.createServer(onSocket);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  t.teardown(close);
  return { messages, address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`, close };
}

async function startHub(t: Test, dir: string, database: StoreDatabase, exports: Array<Record<string, unknown>>) {
  const on = hubOnDatabase(database);
  const hub = await startTestHub({
    dir,
    plugins: [admin],
    mysqlUrl: on.mysqlUrl,
    config: { ...on.config, audit_log: { flush_interval_ms: 20, export: exports } },
    registries: [],
  });
  t.teardown(() => hub.close());
  return hub;
}

/** Real requests: admin reads (allowed) and the same without a token (denied). */
async function traffic(url: string, token: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await (await fetch(`${url}/api/v1/admin/users`, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer();
    await (await fetch(`${url}/api/v1/admin/users?x="]\\`)).arrayBuffer();
  }
}

/** Every chained row of chain `local` in the database: seq to hash. */
async function rowsInDb(db: import('knex').Knex): Promise<Map<number, string>> {
  const rows = (await db('access_events').where({ chain: 'local' }).select('seq', 'hash')) as Array<{
    seq: number;
    hash: string;
  }>;
  return new Map(rows.map((r) => [Number(r.seq), r.hash]));
}

const { tiers, skipped } = storeTiers();
if (skipped) t.comment(skipped);

for (const tier of tiers) {
  t.test(`${tier.name}: RFC 5424 over TCP and JSON lines receive every row`, async (t) => {
    const dir = t.testdir();
    const database = await tier.database(t, dir);
    const receiver = await syslogReceiver(t);
    const jsonl = path.join(dir, 'audit.jsonl');
    const hub = await startHub(t, path.join(dir, 'hub'), database, [
      { type: 'syslog', address: receiver.address, app_name: 'hub-test', facility: 10 },
      { type: 'jsonl', path: jsonl },
    ]);
    await traffic(hub.url, hub.adminToken, 5);
    // A request's row is recorded as it ends, which may be just after its client has the answer.
    await eventually(async () => (await hub.hub.audit.flush(), (await rowsInDb(hub.hub.db)).size >= 10));
    const inDb = await rowsInDb(hub.hub.db);
    t.ok(inDb.size >= 10, `${inDb.size} rows written`);
    await eventually(async () => receiver.messages.length >= inDb.size);
    const bySeq = new Map(receiver.messages.map((m) => [Number(m.sd.seq), m]));
    t.equal(bySeq.size, receiver.messages.length, 'no row twice');
    for (const [seq, hash] of inDb) t.equal(bySeq.get(seq)?.sd.hash, hash, `seq ${seq} received with its hash`);
    const denied = receiver.messages.find((m) => m.body.outcome === 'denied')!;
    t.equal(denied.pri, 10 * 8 + 4, 'a refusal: facility authpriv, severity warning');
    t.match(denied, {
      version: '1',
      appName: 'hub-test',
      msgId: 'user_list',
      sd: { chain: 'local', outcome: 'denied', status: '401' },
    });
    t.equal(new Date(denied.timestamp).toISOString(), denied.timestamp, 'RFC 3339 UTC timestamp');
    t.equal(denied.sd.id, String(denied.body.id), 'SD and message name the same row');
    const allowed = receiver.messages.find((m) => m.body.outcome === 'allowed')!;
    t.equal(allowed.pri, 10 * 8 + 5, 'allowed: severity notice');

    await eventually(
      async () => fs.existsSync(jsonl) && fs.readFileSync(jsonl, 'utf8').trim().split('\n').length >= inDb.size,
    );
    const lines = fs
      .readFileSync(jsonl, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    t.same(
      lines.map((l) => l.seq),
      [...inDb.keys()].sort((a, b) => a - b),
      'JSON lines: every row once, in chain order',
    );
    t.match(lines[0], { chain: 'local', seq: 1, prev_hash: '0'.repeat(64), hash: inDb.get(1) });
  });

  t.test(
    `${tier.name}: over TLS; a hub stopped while the receiver is down delivers after its restart, once`,
    async (t) => {
      const dir = t.testdir();
      const database = await tier.database(t, dir);
      const ca = makeTestCa(path.join(dir, 'ca'));
      const cert = ca.issue('receiver', ['127.0.0.1']);
      const port = await closedPort();
      const sink = { type: 'syslog', address: `127.0.0.1:${port}`, tls_ca_file: ca.certPath, name: 'siem' };

      const first = await startHub(t, path.join(dir, 'a'), database, [sink]);
      await traffic(first.url, first.adminToken, 4);
      await first.close();
      const written = await rowsInDb(createDbFor(database));

      const receiver = await syslogReceiver(t, port, cert);
      const hub = await startHub(t, path.join(dir, 'b'), database, [sink]);
      await eventually(async () => receiver.messages.length >= written.size, 20_000);
      await traffic(hub.url, hub.adminToken, 2);
      await hub.close();
      const all = await rowsInDb(createDbFor(database));
      t.ok(all.size > written.size, `${written.size} rows before the restart, ${all.size} in all`);
      // The last page left at close() is on its way through the receiver's socket.
      await eventually(async () => receiver.messages.length >= all.size);
      const seqs = receiver.messages.map((m) => Number(m.sd.seq)).sort((a, b) => a - b);
      t.same(
        seqs,
        [...all.keys()].sort((a, b) => a - b),
        'every row received exactly once, over TLS',
      );
      for (const m of receiver.messages) t.equal(m.sd.hash, all.get(Number(m.sd.seq)), `seq ${m.sd.seq}: its hash`);
    },
  );
}

const dbs: Array<import('knex').Knex> = [];
t.teardown(() => Promise.all(dbs.map((d) => d.destroy())));
/** A connection of the test's own to the hubs' database, for reading after they stopped. */
function createDbFor(database: StoreDatabase): import('knex').Knex {
  const d = createDb(
    database.client === 'mysql'
      ? { client: 'mysql', url: database.url }
      : { client: 'sqlite', filename: database.filename },
  );
  dbs.push(d);
  return d;
}
