/**
 * Kept listings (issue 29): once the upstream deleted a module and the upstream audit has it as disappeared,
 * hub serves the module's last good `@v/list` with only the versions it holds, so `go list -m -versions` and a
 * fresh module cache's `go mod download` still work. The first part shows the list goes without the audit.
 */
import path from 'node:path';
import t from 'tap';
import { disappearedVersions, KEPT_AUDIT_CONFIG, revalidatePackage, sweepUpstream } from '@hub/testkit';
import { setup } from '../setup.js';
import { goEnvVars, goHome, noGo, run } from '../go-env.js';

t.test(
  'go list -m -versions and go mod download after the upstream deleted the module',
  { skip: noGo, timeout: 240_000 },
  async (t) => {
    const s = await setup(t, {
      config: { auth: { anonymous: ['source:read'] }, ...KEPT_AUDIT_CONFIG },
      registry: { metadata_ttl_secs: 0 },
    });
    const home = goHome(t, 'hub-go-kept-');
    /** A fresh module cache per call, so every answer comes from hub. */
    const go = (label: string, args: string[]) => {
      const env = goEnvVars(home, s.base, {
        GOPATH: path.join(home, `gopath-${label}`),
        GOMODCACHE: path.join(home, `modcache-${label}`),
      });
      return run('go', args, { cwd: home, env, timeout: 120_000 }).then(
        (r) => r.stdout.trim(),
        (e: { stderr: string }) => `failed: ${e.stderr}`,
      );
    };
    const versions = (label: string) => go(label, ['list', '-m', '-versions', 'example.com/Hub/demo']);
    // The list is cached by a plain GET: go list would also fetch v1.1.0's .info, and hub would hold that version too.
    const list = await fetch(`${s.base}/example.com/!hub/demo/@v/list`);
    t.same((await list.text()).trim().split('\n').sort(), ['v1.0.0', 'v1.1.0'], 'both versions listed through hub');
    t.match(
      await go('hold', ['mod', 'download', '-json', 'example.com/Hub/demo@v1.0.0']),
      /"Version": "v1\.0\.0"/,
      'v1.0.0 fetched through hub: hub holds it',
    );
    await s.hub.artifacts.idle();

    const fresh = await revalidatePackage(s, 'go', 'example.com/Hub/demo');
    t.match(
      fresh,
      { before: ['v1.0.0', 'v1.1.0'], after: ['v1.0.0', 'v1.1.0'], added: [], gone: [] },
      'revalidation reads the same versions from the listing it refetched',
    );
    s.upstream.fault(/^\/example\.com\/!hub\/demo\//, { type: 'status', status: 404, body: 'not found' });
    t.match(
      await versions('before-audit'),
      /^failed:|^example\.com\/Hub\/demo$/,
      'without the audit the versions go with the upstream',
    );

    const swept = await sweepUpstream(s, 'go');
    t.match(swept, { outcome: 'ok', missing: 1, disappeared: 1 }, 'the sweep finds v1.0.0 gone and confirms it');
    t.same(await disappearedVersions(s, 'go'), ['example.com/Hub/demo@v1.0.0']);
    t.equal(
      await versions('kept'),
      'example.com/Hub/demo v1.0.0',
      'the kept list offers the version hub holds, and only it',
    );
    t.match(
      await go('kept-download', ['mod', 'download', '-json', 'example.com/Hub/demo@v1.0.0']),
      /"Version": "v1\.0\.0"/,
      'a fresh module cache downloads it from hub',
    );
    t.match(
      await go('kept-latest', ['list', '-m', 'example.com/Hub/demo@latest']),
      /^example\.com\/Hub\/demo v1\.0\.0$/,
      '@latest resolves to the held version',
    );
    const gone = await revalidatePackage(s, 'go', 'example.com/Hub/demo');
    t.match(gone, { after: [], gone: fresh.after }, 'revalidating the deleted package: every version gone');
    t.ok(
      gone.documents.every((d) => d.outcome === 'not_found'),
      'each listing document answered 404, and its kept copy stays',
    );
  },
);
