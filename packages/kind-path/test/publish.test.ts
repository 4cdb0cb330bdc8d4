import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { rawRequest, startFixtureUpstream, startTestHub, missingClient } from '@hub/testkit';
import generic from '../src/kinds/generic.js';
import publishing from '@hub/publishing';

/** Issue 13: files published to a generic registry with curl, and the refusals every publishing kind shares. */
const exec = promisify(execFile);
const hasCurl = await exec('curl', ['--version']).then(
  () => true,
  () => false,
);
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

async function start(t: Test, registry: Record<string, unknown>, upstreamFiles: Record<string, string> = {}) {
  const root = t.testdir({ up: upstreamFiles, hub: {} });
  const upstream = await startFixtureUpstream({ root: path.join(root, 'up') });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: path.join(root, 'hub'),
    plugins: [generic, publishing],
    registries: [
      { name: 'files', type: 'generic', ...(registry.mode === 'local' ? {} : { upstream: upstream.url }), ...registry },
    ],
  });
  t.teardown(() => hub.close());
  const publisher = await hub.token('ci', { roles: ['publisher'] });
  const reader = await hub.token('dev', { roles: ['reader'] });
  return { hub: hub.hub, upstream, publisher, reader, base: `${hub.url}/proxy/files`, root };
}

/** `curl --upload-file`, as a CI script publishes a file; returns the status and body. */
async function curlPut(
  url: string,
  file: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const args = ['-s', '-o', '-', '-w', '\n%{http_code}', '--upload-file', file];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  const { stdout } = await exec('curl', [...args, url]);
  const cut = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(cut + 1)), body: stdout.slice(0, cut) };
}

const put = (url: string, body: Buffer, headers: Record<string, string>) =>
  fetch(url, { method: 'PUT', body, headers }).then(async (r) => ({
    status: r.status,
    json: (await r.json()) as { error?: { code: string; message: string } },
  }));

t.test(
  'curl publishes a file to a local registry and reads it back; a second PUT of the path is 409',
  { skip: hasCurl ? false : missingClient('curl', 'apt-get install curl') },
  async (t) => {
    const s = await start(t, { mode: 'local' });
    const file = path.join(s.root, 'tool-1.2.0.tar.gz');
    const bytes = crypto.randomBytes(50_000);
    fs.writeFileSync(file, bytes);
    const auth = { authorization: `Bearer ${s.publisher}` };

    const created = await curlPut(`${s.base}/tools/tool-1.2.0.bin`, file, {
      ...auth,
      'x-checksum-sha256': sha256(bytes),
    });
    t.equal(created.status, 201, created.body);
    t.match(JSON.parse(created.body), { path: 'tools/tool-1.2.0.bin', size: bytes.length, sha256: sha256(bytes) });
    const back = await rawRequest(`${s.base}/tools/tool-1.2.0.bin`, {
      headers: { authorization: `Bearer ${s.reader}` },
    });
    t.equal(back.status, 200);
    t.same(back.body, bytes, 'the same bytes come back');
    t.equal(
      (await curlPut(`${s.base}/tools/tool-1.2.0.bin`, file, auth)).status,
      409,
      'a published path never changes',
    );

    await s.hub.audit.flush();
    const rows = await s.hub
      .db('access_events')
      .where({ action: 'publish' })
      .select('user_id', 'package', 'version', 'status');
    t.same(
      rows,
      [{ user_id: 'ci', package: 'repo', version: 'tools/tool-1.2.0.bin', status: 201 }],
      'one audit row, with its actor',
    );
    const events = await s.hub.db('events').where({ type: 'package_published' }).select('data');
    t.equal(events.length, 1, 'a package_published event');
  },
);

t.test(
  'the refusals: no token, a reader, a proxy registry, a wrong checksum, a broken archive, too large, traversal',
  async (t) => {
    const s = await start(t, { mode: 'local', max_publish_bytes: 1000 });
    const body = Buffer.from('x'.repeat(100));
    const as = (token: string) => ({ authorization: `Bearer ${token}` });
    t.equal((await put(`${s.base}/a.bin`, body, {})).status, 401, 'no token');
    t.equal((await put(`${s.base}/a.bin`, body, as(s.reader))).status, 403, 'a reader may not publish');
    const wrong = await put(`${s.base}/a.bin`, body, { ...as(s.publisher), 'x-checksum-sha256': '0'.repeat(64) });
    t.equal(wrong.status, 400);
    t.match(wrong.json.error?.message, /sha256/);
    const broken = await put(`${s.base}/a.tar.gz`, body, as(s.publisher));
    t.equal(broken.status, 400, 'a .tar.gz that is not gzip');
    const large = await put(`${s.base}/big.bin`, Buffer.alloc(2000), as(s.publisher));
    t.equal(large.status, 413);
    t.equal(large.json.error?.code, 'payload_too_large');
    const traversal = await rawRequest(`${s.base}/a/%2e%2e/%2e%2e/etc/passwd`, {
      method: 'PUT',
      headers: as(s.publisher),
    });
    t.equal(traversal.status, 400, 'a path that leaves its place');
    t.same(await s.hub.db('artifacts').select('cache_key'), [], 'nothing was stored');
    t.same(
      await s.hub
        .db('registry_usage')
        .sum({ n: 'bytes' })
        .first()
        .then((r: { n?: unknown } | undefined) => Number(r?.n ?? 0)),
      0,
      'no quota taken',
    );
    t.same(fs.readdirSync(s.hub.blobs.tmpDir), [], 'no spool file left');

    const proxy = await start(t, { mode: 'proxy' });
    const refused = await put(`${proxy.base}/a.bin`, body, as(proxy.publisher));
    t.equal(refused.status, 405);
    t.equal(refused.json.error?.code, 'method_not_allowed');
    t.match(refused.json.error?.message, /proxy registry/);
  },
);

t.test('quota: ten concurrent publishes never take more than quota_bytes', async (t) => {
  const s = await start(t, { mode: 'local', quota_bytes: 3500 });
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      put(`${s.base}/f${i}.bin`, crypto.randomBytes(1000), { authorization: `Bearer ${s.publisher}` }),
    ),
  );
  const statuses = results.map((r) => r.status).sort();
  t.same(statuses, [201, 201, 201, 507, 507, 507, 507, 507, 507, 507], 'three fit, seven are refused');
  t.equal(results.find((r) => r.status === 507)?.json.error?.code, 'insufficient_storage');
  const used = await s.hub.db('registry_usage').where({ registry: 'files' }).first('bytes');
  t.equal(Number(used?.bytes), 3000, 'the usage counts what was stored');
  t.equal(
    await s.hub
      .db('artifacts')
      .count({ n: '*' })
      .first()
      .then((r: { n?: unknown } | undefined) => Number(r?.n)),
    3,
  );
});

t.test(
  'hybrid: a published file wins over the upstream one at the same path; other paths come from the upstream',
  async (t) => {
    const s = await start(
      t,
      { mode: 'hybrid' },
      { 'shared.txt': 'from upstream', 'only-upstream.txt': 'upstream only' },
    );
    const mine = Buffer.from('published here');
    t.equal((await put(`${s.base}/shared.txt`, mine, { authorization: `Bearer ${s.publisher}` })).status, 201);
    const shared = await rawRequest(`${s.base}/shared.txt`, { headers: { authorization: `Bearer ${s.reader}` } });
    t.same(shared.body, mine, 'the local file');
    t.equal(s.upstream.count('/shared.txt'), 0, 'the upstream was not asked');
    const other = await rawRequest(`${s.base}/only-upstream.txt`, { headers: { authorization: `Bearer ${s.reader}` } });
    t.equal(other.body.toString(), 'upstream only');
  },
);
