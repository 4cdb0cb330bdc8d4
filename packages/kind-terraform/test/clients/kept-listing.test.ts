/**
 * Kept listings (issue 29): once the upstream deleted a provider and the upstream audit has it as disappeared,
 * hub serves its last good versions document with only the versions it holds (and the held version's download
 * document), so `terraform init` with a version constraint still installs the held version. The first init after
 * the deletion shows it fails without the audit.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import {
  disappearedVersions,
  KEPT_AUDIT_CONFIG,
  revalidatePackage,
  missingClient,
  rawRequest,
  sweepUpstream,
} from '@hub/testkit';
import { setup, type TfSetup } from '../setup.js';

const run = promisify(execFile);
const hasTerraform = (() => {
  try {
    execFileSync('terraform', ['version'], {
      env: { PATH: process.env.PATH, CHECKPOINT_DISABLE: '1' },
      stdio: 'ignore',
    });
    return true;
  } catch {
    return false;
  }
})();

/** `terraform init` in a fresh directory and HOME (no plugin cache), requiring hubns/hubdemo `constraint`. */
async function init(t: Test, s: TfSetup, constraint: string): Promise<string> {
  const host = `localhost:${new URL(s.url).port}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-tf-kept-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'home'));
  fs.mkdirSync(path.join(dir, 'work'));
  fs.writeFileSync(
    path.join(dir, 'work', 'main.tf'),
    `terraform {\n  required_providers {\n    hubdemo = {\n      source  = "${host}/hubns/hubdemo"\n      version = "${constraint}"\n    }\n  }\n}\n`,
  );
  fs.writeFileSync(path.join(dir, 'cli.tfrc'), `credentials "${host}" {\n  token = "${s.reader}"\n}\n`);
  const env = {
    PATH: process.env.PATH,
    HOME: path.join(dir, 'home'),
    TF_CLI_CONFIG_FILE: path.join(dir, 'cli.tfrc'),
    SSL_CERT_FILE: s.cert!.certPath,
    CHECKPOINT_DISABLE: '1',
    TF_IN_AUTOMATION: '1',
  };
  return run('terraform', ['init', '-input=false', '-no-color'], {
    cwd: path.join(dir, 'work'),
    env,
    timeout: 120_000,
  }).then(
    (r) => r.stdout,
    (e: { stderr: string }) => `failed: ${e.stderr}`,
  );
}

t.test(
  'terraform init with a version constraint after the upstream deleted the provider',
  { skip: hasTerraform ? false : missingClient('terraform'), timeout: 240_000 },
  async (t) => {
    const s = await setup(t, { tls: true, config: KEPT_AUDIT_CONFIG, registry: { metadata_ttl_secs: 0 } });
    const ca = fs.readFileSync(s.cert!.certPath);
    t.match(
      await init(t, s, '1.2.3'),
      /Installed \S+\/hubns\/hubdemo v1\.2\.3/,
      'v1.2.3 installed through hub: hub holds it',
    );
    await s.hub.artifacts.idle();
    const versions = await rawRequest(`${s.base}/v1/providers/hubns/hubdemo/versions`, { headers: s.auth, ca });
    t.same(
      (JSON.parse(versions.body.toString('utf8')) as { versions: Array<{ version: string }> }).versions
        .map((v) => v.version)
        .sort(),
      ['1.2.3', '1.3.0'],
      'the upstream lists 1.2.3 and 1.3.0',
    );

    const fresh = await revalidatePackage(s, 'tf', 'hubns/hubdemo', ca);
    t.match(
      fresh,
      { before: ['1.2.3', '1.3.0'], after: ['1.2.3', '1.3.0'], added: [], gone: [] },
      'revalidation reads the same versions from the listing it refetched',
    );
    s.upstream.fault(/^\/(v1\/providers\/hubns\/hubdemo\/|files\/hubdemo\/)/, {
      type: 'status',
      status: 404,
      body: 'not found',
    });
    t.match(await init(t, s, '>= 1.0.0'), /^failed:/, 'without the audit terraform init fails');

    t.match(await sweepUpstream(s, 'tf', ca), { outcome: 'ok', disappeared: 1 }, 'the sweep confirms 1.2.3 gone');
    t.same(await disappearedVersions(s, 'tf', ca), ['hubns/hubdemo@1.2.3']);
    t.match(
      await init(t, s, '>= 1.0.0'),
      /Installed \S+\/hubns\/hubdemo v1\.2\.3/,
      'the kept versions document offers the held 1.2.3 (not 1.3.0), and it installs',
    );
    const gone = await revalidatePackage(s, 'tf', 'hubns/hubdemo', ca);
    t.match(gone, { after: [], gone: fresh.after }, 'revalidating the deleted package: every version gone');
    t.ok(
      gone.documents.every((d) => d.outcome === 'not_found'),
      'each listing document answered 404, and its kept copy stays',
    );
  },
);
