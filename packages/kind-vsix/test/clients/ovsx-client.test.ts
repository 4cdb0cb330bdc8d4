import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { VSIX, setup } from '../setup.js';
import { missingClient } from '@hub/testkit';

const run = promisify(execFile);

/**
 * The real `ovsx` CLI (npm package `ovsx`), when the machine has it: OVSX_BIN names the executable,
 * else `ovsx` on PATH. It is not a root dependency of the monorepo.
 */
async function findOvsx(): Promise<string | null> {
  const candidates = [process.env.OVSX_BIN, 'ovsx'].filter((c): c is string => !!c);
  for (const bin of candidates) {
    try {
      await run(bin, ['--version'], { timeout: 30_000 });
      return bin;
    } catch {
      /* try the next */
    }
  }
  return null;
}

const ovsx = await findOvsx();

t.test(
  'ovsx get through hub',
  { skip: ovsx ? false : missingClient('ovsx', 'set OVSX_BIN or put ovsx on PATH') },
  async (t) => {
    const s = await setup(t);
    // Not t.testdir(): the hub's store already lives there, and a second call would wipe it.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-ovsx-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const env = { ...process.env };
    for (const k of Object.keys(env)) if (/^(OVSX_|NODE_OPTIONS|TAP|_TAPJS)|_proxy$/i.test(k)) delete env[k];
    const out = path.join(dir, 'out') + path.sep;
    const first = await run(ovsx!, ['get', 'hubpub.hubext', '-r', `${s.ovsx}/`, '-o', out], { env, timeout: 60_000 });
    t.match(first.stdout, /Downloading hubpub\.hubext-1\.0\.0/);
    const file = path.join(dir, 'out', 'hubpub.hubext-1.0.0.vsix');
    t.ok(fs.readFileSync(file).equals(VSIX), 'ovsx wrote the VSIX, byte for byte, under its own file name');
    t.ok(
      s.upstream.requests.every((r) => r.url.startsWith('/api/hubpub/hubext')),
      'only the expected upstream paths',
    );
    t.equal(s.upstream.count('/api/hubpub/hubext/1.0.0/file/'), 1, 'one upstream download');

    // The second download comes from hub's cache.
    await s.hub.artifacts.idle();
    const ranged = path.join(dir, 'again.vsix');
    await run(ovsx!, ['get', 'hubpub.hubext', '-v', '^1.0.0', '-r', `${s.ovsx}/`, '-o', ranged], {
      env,
      timeout: 60_000,
    });
    t.ok(fs.readFileSync(ranged).equals(VSIX));
    t.equal(s.upstream.count('/api/hubpub/hubext/1.0.0/file/'), 1, 'no second upstream download');

    // A range the newest version does not satisfy makes ovsx follow allVersions[v], which must point at hub.
    const old = await run(ovsx!, ['get', 'hubpub.hubext', '-v', '0.9.x', '--metadata', '-r', `${s.ovsx}/`], {
      env,
      timeout: 60_000,
    });
    const oldDoc = JSON.parse(old.stdout) as { version: string; files: { download: string } };
    t.equal(oldDoc.version, '0.9.0');
    t.equal(oldDoc.files.download, `${s.ovsx}/api/hubpub/hubext/0.9.0/file/hubpub.hubext-0.9.0.vsix`);
    t.equal(s.upstream.count('/api/hubpub/hubext/0.9.0'), 1, 'hub fetched the version document for ovsx');

    // --metadata prints the rewritten document: no upstream URL reaches the client.
    const meta = await run(ovsx!, ['get', 'hubpub.hubext', '--metadata', '-r', `${s.ovsx}/`], { env, timeout: 60_000 });
    t.notOk(meta.stdout.includes(s.upstream.url), 'no upstream URL in what ovsx sees');
    t.match(
      meta.stdout,
      new RegExp(
        `${s.ovsx.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/api/hubpub/hubext/1\\.0\\.0/file/hubpub\\.hubext-1\\.0\\.0\\.vsix`,
      ),
    );
  },
);
