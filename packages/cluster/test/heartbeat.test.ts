import path from 'node:path';
import { Writable } from 'node:stream';
import t from 'tap';
import { createHub } from '@hub/runtime';
import { createLogger } from '@hub/runtime/internal';
import cluster from '../src/index.js';

/** A hub on `dir`'s SQLite file whose log lines land in `lines`. */
function start(dir: string, lines: Array<{ level: number; msg: string }>) {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const configText = `[database]\nclient = "sqlite"\nfilename = "${path.join(dir, 'hub.db')}"\n[storage]\nkind = "fs"\npath = "${path.join(dir, 'blobs')}"\n[limits]\nrate_store = "memory"\n`;
  return createHub({
    plugins: [cluster],
    configText,
    env: { HUB_ADMIN_TOKEN: 'hub_heartbeat_test_0123456789abcdef' },
    logger: createLogger({ level: 'info', destination: sink }),
    print: () => {},
  });
}

const heartbeats = async (hub: Awaited<ReturnType<typeof createHub>>) =>
  Number((await hub.db('replicas').count({ n: '*' }).first())?.n);

t.test('replicas on a memory rate store beside each other: an error at start naming the key', async (t) => {
  const dir = t.testdir({});
  type Line = { level: number; msg: string };
  const linesA: Line[] = [];
  const linesB: Line[] = [];
  const a = await start(dir, linesA);
  t.teardown(() => a.close());
  t.equal(await heartbeats(a), 1, 'the first hub writes its heartbeat');
  t.notOk(
    linesA.some((l) => l.level >= 50),
    'one replica alone: its memory store is hub-wide, nothing to say',
  );

  const b = await start(dir, linesB);
  t.equal(await heartbeats(b), 2, 'two heartbeats');
  const error = linesB.find((l) => l.level === 50);
  t.match(
    error?.msg,
    /2 replicas share this database .* up to 2 times looser .* rate_store = "redis"/,
    'the second replica logs an error naming the key',
  );
  await b.close();
  t.equal(await heartbeats(a), 1, 'a replica that closes removes its heartbeat');
});
