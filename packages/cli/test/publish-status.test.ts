import t from 'tap';
import admin from '@hub/admin';
import { generic } from '@hub/kind-path';
import { startTestHub } from '@hub/testkit';
import { json, runHub } from './run-hub.js';
import publishing from '@hub/publishing';

/** hub packages published | publish-status | unpublish against a hub with a local generic registry (issue 13). */
t.test('packages published, publish-status and unpublish', async (t) => {
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [admin, generic, publishing],
    registries: [{ name: 'files', type: 'generic', mode: 'local' }],
  });
  t.teardown(() => hub.close());
  const cli = (...args: string[]) => runHub(args, { HUB_URL: hub.url, HUB_TOKEN: hub.adminToken });
  const publisher = await hub.token('ci', { roles: ['publisher'] });
  for (const p of ['tools/a-1.0.bin', 'tools/a-2.0.bin']) {
    const res = await fetch(`${hub.url}/proxy/files/${p}`, {
      method: 'PUT',
      body: p,
      headers: { authorization: `Bearer ${publisher}` },
    });
    t.equal(res.status, 201);
  }

  const listed = await cli('packages', 'published');
  t.equal(listed.code, 0, listed.stderr);
  t.match(listed.stdout, /^REGISTRY\s+PACKAGE\s+LOCAL_ONLY\s+CREATED\nfiles\s+repo\s+yes\s+\S+\n$/);

  const status = await cli('packages', 'publish-status', 'files', 'repo');
  t.equal(status.code, 0, status.stderr);
  t.match(
    status.stdout,
    /^files repo: 2 version\(s\) published; local only: the upstream is never asked about this name\nVERSION\s+PUBLISHED\s+PUBLISHER/,
  );
  t.match(status.stdout, /tools\/a-1\.0\.bin\s+\S+\s+ci\s+no/);

  const gone = await cli('packages', 'unpublish', 'files', 'repo', 'tools/a-1.0.bin');
  t.equal(gone.code, 0, gone.stderr);
  t.equal(gone.stdout, 'unpublished files repo@tools/a-1.0.bin; its version number stays taken\n');
  t.match(json(await cli('packages', 'publish-status', '--registry', 'files', '--package', 'repo', '--json')), {
    versions: [{ version: 'tools/a-2.0.bin' }],
    tombstones: ['tools/a-1.0.bin'],
  });
  t.match(
    (await cli('packages', 'publish-status', 'files', 'repo')).stdout,
    /deleted, never to be published again: tools\/a-1\.0\.bin\n$/,
  );

  const unknown = await cli('packages', 'unpublish', 'files', 'repo', 'tools/never.bin');
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /HTTP 404, not_found/);
});
