import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { filesKind, startFixtureUpstream, startTestHub } from '@hub/testkit';
import { createDb, createLogger, logDestination } from '../src/internal.js';

// The request lines and the audit rows are written in batches off the response path (decision 0075): a graceful
// close must write every one of them, however long their batch windows are.
t.test('hub.close() writes every batched request line and audit row', async (t) => {
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-log-flush-'));
  t.teardown(() => fs.rmSync(top, { recursive: true, force: true }));
  const root = path.join(top, 'up');
  fs.mkdirSync(path.join(root, 'pkg/1.0.0'), { recursive: true });
  fs.writeFileSync(path.join(root, 'pkg/1.0.0/a.bin'), Buffer.alloc(1024, 7));
  const upstream = await startFixtureUpstream({ root });
  t.teardown(() => upstream.close());
  const logFile = path.join(top, 'hub.log');
  const hub = await startTestHub({
    dir: path.join(top, 'hub'),
    plugins: [filesKind],
    registries: [{ name: 'files', type: 'files', upstream: upstream.url }],
    logger: createLogger({ level: 'info', destination: logDestination(logFile) }),
    // No timed audit flush before close(): only close() can have written the rows.
    config: { auth: { anonymous: ['source:read'] }, audit_log: { flush_interval_ms: 60_000 } },
  });
  const ids: string[] = [];
  for (let i = 0; i < 40; i++) {
    const id = `flush-test-${i}`;
    ids.push(id);
    const r = await fetch(`${hub.url}/proxy/files/pkg/1.0.0/a.bin`, { headers: { 'x-request-id': id } });
    t.equal(r.status, 200);
    await r.arrayBuffer();
  }
  // The response of the last request has been read; its log line and audit row may still sit in their batches.
  await hub.close();

  const lines = fs
    .readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { msg: string; req_id?: string; status?: number });
  const logged = lines.filter((l) => l.msg === 'request').map((l) => l.req_id);
  t.same(logged.sort(), [...ids].sort(), 'one request line per request, none lost at close');

  const db = createDb({ client: 'sqlite', filename: path.join(top, 'hub', 'hub.db') });
  t.teardown(() => db.destroy());
  const rows = (await db('access_events')
    .whereIn('request_id', ids)
    .select('request_id', 'action', 'status')) as Array<{ request_id: string; action: string; status: number }>;
  t.equal(rows.length, ids.length, 'one audit row per request, none lost at close');
  t.ok(
    rows.every((r) => r.action === 'download' && r.status === 200),
    'each row says what was served',
  );
});
