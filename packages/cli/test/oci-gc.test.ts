/**
 * `hub oci gc [--dry-run]` against a real hub with a local oci registry: a blob pushed and never named by a
 * manifest, past the grace period (gc_grace_secs = 0), is listed by a dry run and removed by a run.
 */
import { createHash } from 'node:crypto';
import t from 'tap';
import admin from '@hub/admin';
import oci from '@hub/kind-oci';
import publishing from '@hub/publishing';
import { startTestHub } from '@hub/testkit';
import { runHub } from './run-hub.js';

t.test('hub oci gc lists, then removes, a blob no manifest names', async (t) => {
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [admin, oci, publishing],
    registries: [{ name: 'boxes', type: 'oci', mode: 'local', gc_grace_secs: 0, gc_interval_secs: 0 }],
  });
  t.teardown(() => hub.close());
  const token = await hub.token('pub', { roles: ['publisher'] });
  const blob = Buffer.from('a layer no manifest names');
  const digest = `sha256:${createHash('sha256').update(blob).digest('hex')}`;
  const auth = { authorization: `Basic ${Buffer.from(`pub:${token}`).toString('base64')}` };
  const pushed = await fetch(`${hub.url}/v2/boxes/team/app/blobs/uploads/?digest=${digest}`, {
    method: 'POST',
    headers: auth,
    body: blob,
  });
  t.equal(pushed.status, 201);
  const cli = (args: string[]) => runHub(args, { HUB_URL: hub.url, HUB_TOKEN: hub.adminToken });

  const dry = await cli(['oci', 'gc', '--registry', 'boxes', '--dry-run']);
  t.equal(dry.code, 0, dry.stderr);
  t.match(dry.stdout, `blobs/team/app@${digest}`);
  t.match(dry.stdout, /would remove 1 blob\(s\), 25 bytes/);
  t.equal(
    (await fetch(`${hub.url}/v2/boxes/team/app/blobs/${digest}`, { headers: auth })).status,
    200,
    'a dry run removes nothing',
  );

  const run = await cli(['oci', 'gc', 'boxes', '--json']);
  t.equal(run.code, 0, run.stderr);
  t.match(JSON.parse(run.stdout), {
    registry: 'boxes',
    dry_run: false,
    removed: [{ key: `blobs/team/app@${digest}`, size: 25 }],
  });
  t.equal((await fetch(`${hub.url}/v2/boxes/team/app/blobs/${digest}`, { headers: auth })).status, 404, 'removed');

  const help = await cli(['oci', 'gc', '--help']);
  t.match(help.stdout, /Usage: hub oci gc --registry R \[--dry-run\]/);
  const notOci = await cli(['oci', 'gc']);
  t.not(notOci.code, 0, 'the registry is required');
});
