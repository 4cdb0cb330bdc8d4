import t from 'tap';
import { createTestDatabase, startTestHub, TEST_MYSQL_URL } from '@hub/testkit';
import npm from '@hub/kind-npm';
import publishing from '@hub/publishing';
import workload from '../src/workload/index.js';
import { startJwksIssuer } from './jwks-issuer.js';

/** Issue 27: a token exchanged at one replica is refused at another (they share the MariaDB database). */

t.test(
  'two replicas on one MariaDB database: a token exchanged at one is a replay at the other',
  { skip: TEST_MYSQL_URL ? false : 'MariaDB tier skipped: HUB_TEST_MYSQL_URL is not set' },
  async (t) => {
    const db = await createTestDatabase(TEST_MYSQL_URL!);
    t.teardown(() => db.drop());
    const issuer = await startJwksIssuer();
    t.teardown(() => issuer.close());
    const config = {
      auth: {
        workload: [
          {
            name: 'web',
            issuer: issuer.url,
            audience: 'hub',
            claims: { repository: 'acme/web' },
            roles: ['publisher'],
          },
        ],
      },
    };
    const replica = async () => {
      const hub = await startTestHub({
        dir: t.testdir(),
        storagePath: `${t.testdirName}/blobs`,
        mysqlUrl: db.url,
        plugins: [npm, publishing, workload],
        registries: [{ name: 'internal', type: 'npm', mode: 'local' }],
        config,
      });
      t.teardown(() => hub.close());
      return hub;
    };
    const a = await replica();
    const b = await replica();
    const exchange = async (url: string, token: string) =>
      (await fetch(`${url}/api/v1/auth/exchange`, { method: 'POST', headers: { authorization: `Bearer ${token}` } }))
        .status;
    const first = await issuer.sign({ repository: 'acme/web' });
    t.equal(await exchange(a.url, first), 201);
    t.equal(await exchange(b.url, first), 401, 'replayed at the other replica');
    // Concurrent first uses of one token: exactly one wins.
    const racing = await issuer.sign({ repository: 'acme/web' });
    const statuses = await Promise.all([
      exchange(a.url, racing),
      exchange(b.url, racing),
      exchange(a.url, racing),
      exchange(b.url, racing),
    ]);
    t.same(statuses.filter((s) => s === 201).length, 1, `one 201 among ${statuses.join(', ')}`);
    t.same(statuses.filter((s) => s === 401).length, 3);
  },
);
