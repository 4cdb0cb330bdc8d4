import t from 'tap';
import { generic } from '@hub/kind-path';
import { startTestHub } from '@hub/testkit';
import admin from '../src/index.js';
import publishing from '@hub/publishing';

/** The admin API's view of publishing: packages, status, deleting a version (a tombstone), local_only. */
t.test(
  'local packages: listed, their status, a deleted version leaves a tombstone that refuses a re-publish',
  async (t) => {
    const hub = await startTestHub({
      dir: t.testdir(),
      plugins: [generic, admin, publishing],
      registries: [{ name: 'files', type: 'generic', mode: 'local' }],
    });
    t.teardown(() => hub.close());
    const publisher = await hub.token('ci', { roles: ['publisher'] });
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${hub.url}/api/v1/admin/${path}`, {
        method,
        headers: { authorization: `Bearer ${hub.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, json: (await res.json()) as Record<string, any> };
    };
    const publish = (p: string) =>
      fetch(`${hub.url}/proxy/files/${p}`, {
        method: 'PUT',
        body: `contents of ${p}`,
        headers: { authorization: `Bearer ${publisher}` },
      }).then((r) => r.status);

    t.equal(await publish('tools/a-1.0.bin'), 201);
    t.equal(await publish('tools/a-2.0.bin'), 201);
    t.match((await api('GET', 'local-packages?registry=files')).json, {
      packages: [{ registry: 'files', name: 'repo', local_only: true }],
    });
    const status = await api('GET', 'local-packages/status?registry=files&package=repo');
    t.equal(status.status, 200);
    t.match(status.json, {
      registry: 'files',
      package: 'repo',
      versions: [{ version: 'tools/a-1.0.bin', publisher: 'ci', yanked: false }, { version: 'tools/a-2.0.bin' }],
      tombstones: [],
    });

    const deleted = await api('DELETE', 'local-packages/versions', {
      registry: 'files',
      package_name: 'repo',
      version: 'tools/a-1.0.bin',
    });
    t.equal(deleted.status, 200);
    t.match(
      (await hub.hub.events.list({ type: 'package_unpublished', limit: 10 })).map((e) => e.data),
      [{ registry: 'files', package: 'repo', version: 'tools/a-1.0.bin', user: 'admin' }],
      'the delete sends package_unpublished',
    );
    t.equal(
      (await fetch(`${hub.url}/proxy/files/tools/a-1.0.bin`, { headers: { authorization: `Bearer ${publisher}` } }))
        .status,
      404,
      'the file is gone',
    );
    t.equal(await publish('tools/a-1.0.bin'), 409, 'its path is never published again');
    t.match((await api('GET', 'local-packages/status?registry=files&package=repo')).json, {
      versions: [{ version: 'tools/a-2.0.bin' }],
      tombstones: ['tools/a-1.0.bin'],
    });
    t.equal(
      (
        await api('DELETE', 'local-packages/versions', {
          registry: 'files',
          package_name: 'repo',
          version: 'tools/a-1.0.bin',
        })
      ).status,
      404,
      'deleting twice is 404',
    );

    t.match(
      (await api('POST', 'local-packages/local-only', { registry: 'files', package_name: 'repo', local_only: false }))
        .json,
      { local_only: false },
    );
    t.match((await api('GET', 'local-packages?registry=files')).json, { packages: [{ local_only: false }] });

    await hub.hub.audit.flush();
    const rows = await hub.hub
      .db('access_events')
      .whereIn('action', ['publish', 'unpublish', 'local_only'])
      .orderBy('id')
      .select('action', 'user_id', 'version');
    t.match(rows, [
      { action: 'publish', user_id: 'ci', version: 'tools/a-1.0.bin' },
      { action: 'publish', user_id: 'ci', version: 'tools/a-2.0.bin' },
      { action: 'unpublish', user_id: 'admin', version: 'tools/a-1.0.bin' },
      { action: 'unpublish', user_id: 'admin' },
      { action: 'local_only', user_id: 'admin' },
    ]);
  },
);
