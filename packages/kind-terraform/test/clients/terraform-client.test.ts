import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { hubRequests, MIRROR_HOST, setup, sha256, zipOf, type TfSetup } from '../setup.js';
import { missingClient } from '@hub/testkit';

const run = promisify(execFile);

function terraformVersion(): string | null {
  try {
    return execFileSync('terraform', ['version', '-json'], {
      env: { PATH: process.env.PATH, CHECKPOINT_DISABLE: '1' },
      encoding: 'utf8',
    });
  } catch {
    return null;
  }
}

const version = terraformVersion();
if (version) t.comment(`terraform ${(JSON.parse(version) as { terraform_version: string }).terraform_version}`);
/** Each real-client test is reported as skipped, with the reason, when there is no terraform. */
const skip = version ? false : missingClient('terraform');

/**
 * A throwaway terraform working directory and CLI configuration: its own HOME, no plugin cache, the
 * hub's self-signed certificate as the only trust root, and the token in a `credentials` block.
 */
function project(t: Test, s: TfSetup, source: string, cliConfig: string) {
  // Not t.testdir(): setup() already made this test's one, and the hub's files live there.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-tf-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'home'));
  fs.mkdirSync(path.join(dir, 'work'));
  fs.writeFileSync(
    path.join(dir, 'work', 'main.tf'),
    `terraform {\n  required_providers {\n    hubdemo = {\n      source  = "${source}"\n      version = "1.2.3"\n    }\n  }\n}\n`,
  );
  fs.writeFileSync(path.join(dir, 'cli.tfrc'), cliConfig);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: path.join(dir, 'home'),
    TF_CLI_CONFIG_FILE: path.join(dir, 'cli.tfrc'),
    SSL_CERT_FILE: s.cert!.certPath,
    CHECKPOINT_DISABLE: '1',
    TF_IN_AUTOMATION: '1',
  };
  const init = () =>
    run('terraform', ['init', '-input=false', '-no-color'], { cwd: path.join(dir, 'work'), env, timeout: 120_000 });
  return { dir, init, work: path.join(dir, 'work') };
}

const hostOf = (s: TfSetup) => `localhost:${new URL(s.url).port}`;

t.test(
  'terraform init through hub with the provider registry protocol (service discovery, token, signed downloads)',
  { skip },
  async (t) => {
    const s = await setup(t, { tls: true });
    const host = hostOf(s);
    const p = project(t, s, `${host}/hubns/hubdemo`, `credentials "${host}" {\n  token = "${s.reader}"\n}\n`);
    const out = await p.init();
    t.match(
      out.stdout,
      `Installed ${host}/hubns/hubdemo v1.2.3 (self-signed, key ID`,
      'installed, the SHA256SUMS signature checked with the upstream key',
    );
    const exe = path.join(
      p.work,
      '.terraform/providers',
      host,
      'hubns/hubdemo/1.2.3/linux_amd64/terraform-provider-hubdemo_v1.2.3',
    );
    t.ok(fs.existsSync(exe), 'the provider executable is unpacked');
    const lock = fs.readFileSync(path.join(p.work, '.terraform.lock.hcl'), 'utf8');
    t.match(lock, `zh:${sha256(zipOf('1.2.3', 'amd64'))}`, 'lock file: linux_amd64 hash from SHA256SUMS');
    t.match(lock, `zh:${sha256(zipOf('1.2.3', 'arm64'))}`, 'lock file: linux_arm64 hash from SHA256SUMS');

    const counts = await hubRequests(s);
    t.comment(`requests through hub: ${JSON.stringify(counts)}`);
    t.same(
      counts,
      { '- 200': 1, 'versions 200': 1, 'download 200': 1, 'file 200': 4 },
      'discovery, versions, download, then SHA256SUMS, .sig, HEAD and GET of the zip',
    );
    t.same(
      s.upstream.requests.map((r) => `${r.method} ${r.url}`),
      [
        'GET /v1/providers/hubns/hubdemo/versions',
        'GET /v1/providers/hubns/hubdemo/1.2.3/download/linux/amd64',
        'GET /files/hubdemo/1.2.3/terraform-provider-hubdemo_1.2.3_SHA256SUMS',
        'GET /files/hubdemo/1.2.3/terraform-provider-hubdemo_1.2.3_SHA256SUMS.sig',
        'HEAD /files/hubdemo/1.2.3/terraform-provider-hubdemo_1.2.3_linux_amd64.zip',
        'GET /files/hubdemo/1.2.3/terraform-provider-hubdemo_1.2.3_linux_amd64.zip',
      ],
      "upstream: each document and file once (terraform's HEAD of the uncached zip is a HEAD upstream)",
    );
    t.equal(
      s.upstream.count((r) => Boolean(r.headers.authorization)),
      0,
      'the token stays at hub',
    );

    // A second project while the upstream is down: everything comes from the cache.
    s.upstream.down();
    const p2 = project(t, s, `${host}/hubns/hubdemo`, `credentials "${host}" {\n  token = "${s.reader}"\n}\n`);
    const again = await p2.init();
    t.match(
      again.stdout,
      `Installed ${host}/hubns/hubdemo v1.2.3 (self-signed`,
      'installed again with the upstream down',
    );
  },
);

t.test('terraform init is refused with a bad token', { skip }, async (t) => {
  const s = await setup(t, { tls: true });
  const host = hostOf(s);
  const p = project(t, s, `${host}/hubns/hubdemo`, `credentials "${host}" {\n  token = "hub_not_a_real_token"\n}\n`);
  const err = await p.init().then(
    () => null,
    (e: { stderr: string }) => e,
  );
  t.ok(err, 'terraform init fails');
  t.match(
    (err?.stderr ?? '').replace(/\s+/g, ' '),
    `host ${host} rejected the given authentication credentials`,
    'terraform reports the 401',
  );
  t.equal(s.upstream.count(), 0, 'nothing was fetched upstream');
});

t.test('terraform init through hub as a provider network mirror', { skip }, async (t) => {
  const s = await setup(t, { tls: true });
  const host = hostOf(s);
  const cli = [
    `credentials "${host}" {\n  token = "${s.reader}"\n}`,
    `provider_installation {\n  network_mirror {\n    url = "https://${host}/proxy/tf/mirror/"\n  }\n}`,
  ].join('\n');
  const p = project(t, s, `${MIRROR_HOST}/hubns/hubdemo`, `${cli}\n`);
  const out = await p.init();
  // "verified checksum": the archive matched the zh: hash hub announced in 1.2.3.json.
  t.match(out.stdout, `Installed ${MIRROR_HOST}/hubns/hubdemo v1.2.3 (verified checksum)`);
  t.ok(
    fs.existsSync(
      path.join(
        p.work,
        '.terraform/providers',
        MIRROR_HOST,
        'hubns/hubdemo/1.2.3/linux_amd64/terraform-provider-hubdemo_v1.2.3',
      ),
    ),
  );
  const lock = fs.readFileSync(path.join(p.work, '.terraform.lock.hcl'), 'utf8');
  t.match(lock, `provider "${MIRROR_HOST}/hubns/hubdemo"`);

  const counts = await hubRequests(s);
  t.comment(`requests through hub: ${JSON.stringify(counts)}`);
  t.same(counts, { 'mirror 200': 2, 'file 200': 2 }, 'index.json, 1.2.3.json, then HEAD and GET of the zip');
  t.same(
    s.upstream.requests.map((r) => `${r.method} ${r.url}`),
    [
      'GET /v1/providers/hubns/hubdemo/versions',
      'GET /v1/providers/hubns/hubdemo/1.2.3/download/linux/amd64',
      'GET /files/hubdemo/1.2.3/terraform-provider-hubdemo_1.2.3_SHA256SUMS',
      'HEAD /files/hubdemo/1.2.3/terraform-provider-hubdemo_1.2.3_linux_amd64.zip',
      'GET /files/hubdemo/1.2.3/terraform-provider-hubdemo_1.2.3_linux_amd64.zip',
    ],
    'upstream: the listing, one download document (for the SHA256SUMS URL), SHA256SUMS, the zip',
  );
});
