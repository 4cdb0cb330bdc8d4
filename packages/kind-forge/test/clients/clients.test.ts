import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { ASSET, setup } from '../setup.js';
import { missingClient } from '@hub/testkit';

const run = (bin: string, args: string[]) => promisify(execFile)(bin, args, { timeout: 30_000 });
const PATH = '/octo/tool/releases/download/v1.2.0/tool-linux-amd64.tar.gz';

async function has(bin: string): Promise<boolean> {
  try {
    await run(bin, ['--version']);
    return true;
  } catch {
    return false;
  }
}

// packages/kind-forge/README.md: curl and wget are the forge clients; they send only hub's bearer token.
for (const client of ['curl', 'wget'] as const) {
  const skip = (await has(client)) ? false : missingClient(client);
  t.test(`${client} downloads a release asset through hub with a bearer token`, { skip }, async (t) => {
    const s = await setup(t, { config: { auth: { anonymous: [] } } });
    const token = await s.token('ci', { roles: ['reader'] });
    // Not t.testdir(): the hub's store already lives there.
    const dir = await mkdtemp(join(tmpdir(), 'forge-client-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const out = join(dir, 'asset.tgz');
    const url = `${s.base}${PATH}`;
    const args =
      client === 'curl'
        ? ['-fsS', '-H', `Authorization: Bearer ${token}`, '-o', out, url]
        : ['-q', '--header', `Authorization: Bearer ${token}`, '-O', out, url];
    await run(client, args);
    t.same(await readFile(out), ASSET, 'the asset byte for byte');
    t.equal(s.forge.count(PATH), 1);
    t.equal(s.storage.count('/signed/'), 1, 'hub, not the client, followed the redirect');

    await s.hub.artifacts.idle();
    await run(client, args);
    t.same(await readFile(out), ASSET);
    t.equal(s.forge.requests.length + s.storage.requests.length, 2, 'the second download made no upstream request');

    const denied = await run(client, client === 'curl' ? ['-fsS', '-o', out, url] : ['-q', '-O', out, url]).then(
      () => 0,
      (e: { code?: number }) => e.code ?? -1,
    );
    t.not(denied, 0, `${client} without a token fails (401)`);
  });
}
