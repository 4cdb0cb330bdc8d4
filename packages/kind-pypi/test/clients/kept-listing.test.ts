/**
 * Kept listings (issue 29): once the upstream deleted a project and the upstream audit has it as disappeared,
 * hub serves the project's last good page with only the versions it holds, so Debian's pip (23.0.1, from a
 * venv of /usr/bin/python3) still installs the held version. The first install shows pip fails without the audit.
 */
import fs from 'node:fs';
import t from 'tap';
import { disappearedVersions, KEPT_AUDIT_CONFIG, revalidatePackage, missingClient, sweepUpstream } from '@hub/testkit';
import { run, world } from '../pip-world.js';

const DEBIAN_PYTHON = '/usr/bin/python3';
const skip =
  fs.existsSync(DEBIAN_PYTHON) && (await run(DEBIAN_PYTHON, ['-c', 'import venv, ensurepip'], process.env)).code === 0
    ? false
    : missingClient("Debian's python3 with venv", 'apt-get install -y python3-venv');

t.test(
  "pip install of a held version after the upstream deleted the project (Debian's pip)",
  { skip, timeout: 240_000 },
  async (t) => {
    const w = await world(t, DEBIAN_PYTHON, { config: KEPT_AUDIT_CONFIG, registry: { metadata_ttl_secs: 0 } });
    const install = (spec: string) =>
      run(w.pip, ['install', '--force-reinstall', '--no-deps', '--index-url', w.index, spec], w.env);
    const version = async () =>
      (await run(w.python, ['-c', 'import hub_demo; print(hub_demo.VERSION)'], w.env)).stdout.trim();
    const first = await install('hub-demo==1.0.0');
    t.equal(first.code, 0, `hub-demo 1.0.0 installed through hub: hub holds it\n${first.stderr}`);
    await w.s.hub.artifacts.idle();

    const fresh = await revalidatePackage(w.s, 'py', 'hub-demo');
    t.ok(
      fresh.after.includes('1.0.0') && fresh.after.length > 1,
      `revalidation reads the project page's versions: ${fresh.after.join(' ')}`,
    );
    t.same(fresh.gone, [], 'nothing gone');
    w.s.index.fault(/^\/simple\/hub-demo\//, { type: 'status', status: 404, body: 'not found' });
    w.s.files!.fault(/^\/hub_demo-/, { type: 'status', status: 404, body: 'not found' });
    const before = await install('hub-demo');
    t.not(before.code, 0, 'without the audit pip finds no hub-demo');

    t.match(await sweepUpstream(w.s, 'py'), { outcome: 'ok', disappeared: 1 }, 'the sweep confirms 1.0.0 gone');
    t.same(await disappearedVersions(w.s, 'py'), ['hub-demo@1.0.0']);
    const kept = await install('hub-demo');
    t.equal(kept.code, 0, `pip install hub-demo succeeds from the kept page\n${kept.stdout}\n${kept.stderr}`);
    t.equal(await version(), '1.0.0', 'the held version (1.1.0, newer but not held, is not offered)');
    const gone = await revalidatePackage(w.s, 'py', 'hub-demo');
    t.match(gone, { after: [], gone: fresh.after }, 'revalidating the deleted package: every version gone');
    t.ok(
      gone.documents.every((d) => d.outcome === 'not_found'),
      'each listing document answered 404, and its kept copy stays',
    );
  },
);
