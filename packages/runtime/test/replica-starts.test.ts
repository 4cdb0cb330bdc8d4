import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createTestDatabase, startTestHub, TEST_MYSQL_URL } from '@hub/testkit';
import { createHub } from '../src/index.js';
import { createDb, createLogger, runtimeMigrations } from '../src/internal.js';

const storeConfig = (dir: string) =>
  `[database]\nclient = "sqlite"\nfilename = "${path.join(dir, 'hub.db')}"\n[storage]\nkind = "fs"\npath = "${path.join(dir, 'blobs')}"\n`;
const start = (dir: string) =>
  createHub({
    plugins: [],
    configText: storeConfig(dir),
    env: { HUB_ADMIN_TOKEN: 'hub_replica_test_0123456789abcdef0' },
    logger: createLogger({ level: 'silent' }),
    print: () => {},
  });

t.test(
  'three replicas started at once on one empty MariaDB database migrate once and all serve',
  { skip: TEST_MYSQL_URL ? false : 'MariaDB tier skipped: HUB_TEST_MYSQL_URL is not set' },
  async (t) => {
    const db = await createTestDatabase(TEST_MYSQL_URL!);
    t.teardown(() => db.drop());
    const dirs = [0, 1, 2].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'hub-replica-')));
    t.teardown(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
    const hubs = await Promise.all(
      dirs.map((dir) => startTestHub({ dir, plugins: [], registries: [], mysqlUrl: db.url })),
    );
    t.teardown(() => Promise.all(hubs.map((h) => h.close())));
    for (const [i, h] of hubs.entries())
      t.equal((await fetch(`${h.url}/readyz`)).status, 200, `replica ${i + 1} is ready`);
    const check = createDb({ client: 'mysql', url: db.url });
    t.teardown(() => check.destroy());
    const names = ((await check('hub_migrations').select('name')) as Array<{ name: string }>).map((r) => r.name);
    t.same(
      names.slice().sort(),
      Object.keys(runtimeMigrations)
        .map((n) => `runtime/${n}`)
        .sort(),
      'each migration is recorded once',
    );
    t.same(
      await check('hub_migrations_lock').select('is_locked'),
      [{ is_locked: 0 }],
      "knex's lock is free, with its one row",
    );
  },
);

t.test(
  'hubs in one process share a SQLite file; the last to close removes the lock (other processes: cli.test.ts)',
  async (t) => {
    const dir = t.testdir({});
    const [first, second] = [await start(dir), await start(dir)];
    await first.close();
    t.ok(fs.existsSync(path.join(dir, 'hub.db.lock')), 'the lock stays while a hub of this process uses the file');
    await second.close();
    t.notOk(fs.existsSync(path.join(dir, 'hub.db.lock')), 'the last close() removes the lock');
    const again = await start(dir);
    t.equal(
      fs.readFileSync(path.join(dir, 'hub.db.lock'), 'utf8'),
      `${os.hostname()} ${process.pid}\n`,
      'a new start takes it again',
    );
    await again.close();
  },
);

t.test('a lock left by a process that died (kill -9) does not block a restart', async (t) => {
  const dir = t.testdir({});
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  fs.writeFileSync(path.join(dir, 'hub.db.lock'), `${os.hostname()} ${dead.stdout}\n`);
  const hub = await start(dir);
  t.equal(
    fs.readFileSync(path.join(dir, 'hub.db.lock'), 'utf8'),
    `${os.hostname()} ${process.pid}\n`,
    'the restart took the lock over',
  );
  await hub.close();
});

t.test(
  "a lock naming this process's own PID from an earlier run (a container's PID 1) does not block the start",
  async (t) => {
    const dir = t.testdir({ 'hub.db.lock': `${os.hostname()} ${process.pid}\n` });
    const hub = await start(dir);
    t.pass('started');
    await hub.close();
  },
);

t.test('a lock held on another host is refused (its process cannot be checked from here)', async (t) => {
  const dir = t.testdir({ 'hub.db.lock': `other-host.invalid 1234\n` });
  const err = await start(dir).then(
    () => null,
    (e: unknown) => e,
  );
  t.match(err, { code: 'database_locked', message: /process 1234 on other-host\.invalid/ });
});

t.test('a :memory: database takes no lock', async (t) => {
  const dir = t.testdir({});
  const config = `[database]\nclient = "sqlite"\nfilename = ":memory:"\n[storage]\nkind = "fs"\npath = "${path.join(dir, 'blobs')}"\n`;
  const open = () =>
    createHub({
      plugins: [],
      configText: config,
      env: { HUB_ADMIN_TOKEN: 'hub_replica_test_0123456789abcdef0' },
      logger: createLogger({ level: 'silent' }),
      print: () => {},
    });
  const [a, b] = await Promise.all([open(), open()]);
  t.pass('two in-memory hubs run side by side');
  await Promise.all([a.close(), b.close()]);
});
