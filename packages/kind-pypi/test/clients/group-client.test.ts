import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import publishing from '@hub/publishing';
import { rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import pypi from '../../src/index.js';
import { run } from '../pip-world.js';
import { sha256, simpleIndex, wheel, type FixtureDist } from '../simple-fixture.js';

/**
 * Issue 28: Debian's pip (23.0.1, from a venv of /usr/bin/python3) installs through a group `py` of a local
 * registry (`py-internal`: acme-tool, published here, needing hub-demo), the public fixture index (`py-public`:
 * hub-demo 1.0.0, hubdep 1.0.0) and a vendor index (`py-vendor`: hub-demo 1.2.0), choosing among the merged
 * versions.
 */
const DEBIAN_PYTHON = '/usr/bin/python3';

async function debianPipMissing(): Promise<string | false> {
  if (!fs.existsSync(DEBIAN_PYTHON))
    return `missing client: Debian's python3 (${DEBIAN_PYTHON}); apt-get install -y python3-venv`;
  const r = await run(DEBIAN_PYTHON, ['-c', 'import venv, ensurepip'], process.env);
  return r.code === 0
    ? false
    : `missing client: python3-venv (${DEBIAN_PYTHON} -m venv has no ensurepip); apt-get install -y python3-venv`;
}

const dist = (project: string, name: string, version: string, requires: string[] = []): FixtureDist => ({
  project,
  ...wheel(name, version, { requires }),
  uploadTime: '2020-01-01T00:00:00Z',
});

t.test(
  "Debian's pip installs through a group, choosing from the members' merged versions",
  { skip: await debianPipMissing() },
  async (t) => {
    const publicDists = [dist('hubdep', 'hubdep', '1.0.0'), dist('hub-demo', 'hub_demo', '1.0.0', ['hubdep>=1.0'])];
    const vendorDists = [dist('hub-demo', 'hub_demo', '1.2.0', ['hubdep>=1.0'])];
    const pub = await startFixtureUpstream({ handler: simpleIndex(() => publicDists) });
    t.teardown(() => pub.close());
    const vendor = await startFixtureUpstream({ handler: simpleIndex(() => vendorDists) });
    t.teardown(() => vendor.close());
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-pypi-group-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const hub = await startTestHub({
      dir: path.join(dir, 'hub'),
      plugins: [pypi, publishing],
      registries: [
        { name: 'py-internal', type: 'pypi', mode: 'local' },
        { name: 'py-public', type: 'pypi', upstream: `${pub.url}/simple` },
        { name: 'py-vendor', type: 'pypi', upstream: `${vendor.url}/simple` },
        { name: 'py', type: 'pypi', mode: 'group', members: ['py-internal', 'py-public', 'py-vendor'] },
      ],
    });
    t.teardown(() => hub.close());
    const publisher = await hub.token('ci', { roles: ['publisher'] });
    const reader = await hub.token('dev', { roles: ['reader'] });

    // Published to the local member as twine uploads it.
    const tool = wheel('acme-tool', '0.1.0', { requires: ['hub-demo>=1.0'] });
    const form = new FormData();
    for (const [k, v] of Object.entries({
      ':action': 'file_upload',
      protocol_version: '1',
      name: 'acme-tool',
      version: '0.1.0',
      sha256_digest: sha256(tool.body),
    }))
      form.append(k, v);
    form.append('content', new Blob([tool.body]), tool.filename);
    const up = await fetch(`${hub.url}/proxy/py-internal/legacy/`, {
      method: 'POST',
      body: form,
      headers: { authorization: `Basic ${Buffer.from(`__token__:${publisher}`).toString('base64')}` },
    });
    t.equal(up.status, 200, `published acme-tool: ${await up.text()}`);

    const moved = await rawRequest(`${hub.url}/proxy/py/simple/Hub_Demo/`, {
      headers: { authorization: `Bearer ${reader}` },
    });
    t.equal(moved.status, 301, 'a name in another spelling: the redirect to its one page');
    t.equal(moved.headers.get('location'), `${hub.url}/proxy/py/simple/hub-demo/`, "the group's page");
    const page = await rawRequest(`${hub.url}/proxy/py/simple/hub-demo/`, {
      headers: { authorization: `Bearer ${reader}`, accept: 'application/vnd.pypi.simple.v1+json' },
    });
    t.same(page.json().versions, ['1.0.0', '1.2.0'], "the group's page lists both upstreams' versions");

    const venv = path.join(dir, 'venv');
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !k.startsWith('PIP_') && k !== 'PYTHONPATH'),
    );
    Object.assign(env, {
      PIP_NO_CACHE_DIR: '1',
      PIP_CONFIG_FILE: '/dev/null',
      PIP_DISABLE_PIP_VERSION_CHECK: '1',
      PIP_NO_INPUT: '1',
    });
    t.equal((await run(DEBIAN_PYTHON, ['-m', 'venv', venv], env)).code, 0, 'a venv of /usr/bin/python3');
    const pip = path.join(venv, 'bin', 'pip');
    t.match((await run(pip, ['--version'], env)).stdout, /^pip 23\.0\.1 /, "Debian's pip");
    const index = new URL(`${hub.url}/proxy/py/simple/`);
    index.username = 'x';
    index.password = reader;
    const r = await run(pip, ['install', '--index-url', index.href, 'acme-tool'], env);
    t.equal(r.code, 0, `pip install acme-tool succeeded\n${r.stdout}\n${r.stderr}`);
    const got = await run(
      path.join(venv, 'bin', 'python'),
      ['-c', 'import acme_tool, hub_demo, hubdep; print(acme_tool.VERSION, hub_demo.VERSION, hubdep.VERSION)'],
      env,
    );
    t.equal(
      got.stdout.trim(),
      '0.1.0 1.2.0 1.0.0',
      'the local package, the newest hub-demo (from the vendor member) and hubdep (from the public one)',
    );
    t.equal(
      vendor.count((r) => r.url.endsWith('/hub_demo-1.2.0-py3-none-any.whl')),
      1,
      "hub-demo 1.2.0's wheel came from the vendor index",
    );
    t.equal(
      pub.count((r) => r.url.includes('acme')) + vendor.count((r) => r.url.includes('acme')),
      0,
      'the published name was never asked of an upstream',
    );
  },
);
