import type { IncomingMessage, ServerResponse } from 'node:http';
import t, { type Test } from 'tap';
import { generic } from '@hub/kind-path';
import { rawRequest, startFixtureUpstream, startTestHub } from '@hub/testkit';
import admin from '../src/index.js';

/** A generic registry in front of an upstream that answers every file; blocks through the admin API. */
async function setup(t: Test) {
  const upstream = await startFixtureUpstream({
    handler: (req: IncomingMessage, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(req.method === 'HEAD' ? undefined : Buffer.from(`file at ${req.url}\n`));
      return true;
    },
  });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [generic, admin],
    registries: [{ name: 'gen', type: 'generic', mode: 'proxy', upstream: upstream.url }],
    config: { auth: { anonymous: ['source:read'] } },
  });
  t.teardown(() => hub.close());
  const block = async (path: string) => {
    const res = await fetch(`${hub.url}/api/v1/admin/blocks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ registry: 'gen', package_name: 'repo', path, reason: 'test' }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  return { upstream, hub, block, get: (path: string) => rawRequest(`${hub.url}/proxy/gen/${path}`) };
}

t.test('a block holds for every spelling of its path: decoded, percent-encoded, NFC or NFD', async (t) => {
  const s = await setup(t);
  const added = await s.block('tools/évil tool.bin');
  t.equal(added.status, 201);
  t.equal(
    added.body.version ?? added.body.path,
    'tools/%C3%A9vil%20tool.bin',
    'stored in the canonical (encoded, NFC) spelling',
  );
  t.equal((await s.block('tools/%C3%A9vil%20tool.bin')).status, 409, 'the encoded spelling is the same block');
  const nfd = 'tools/e\u0301vil%20tool.bin';
  for (const path of ['tools/%C3%A9vil%20tool.bin', 'tools/%c3%a9vil%20tool.bin', encodeURI(nfd.replace('%20', ' '))]) {
    const res = await s.get(path);
    t.equal(res.status, 403, path);
    t.equal(res.json().error.code, 'package_blocked');
  }
  t.equal(s.upstream.requests.length, 0, 'nothing was forwarded');
});

t.test('";" path parameters are refused, so "bad.bin;x" cannot stand in for a blocked "bad.bin"', async (t) => {
  const s = await setup(t);
  t.equal((await s.block('tools/bad.bin')).status, 201);
  t.equal((await s.get('tools/bad.bin')).status, 403);
  for (const path of ['tools/bad.bin;x', 'tools/bad.bin%3Bx', 'tools;v=1/bad.bin']) {
    const res = await s.get(path);
    t.equal(res.status, 400, path);
    t.equal(res.json().error.code, 'bad_request');
  }
  t.equal((await s.block('tools/bad.bin;x')).status, 400, 'nor can such a block be written');
  t.equal(s.upstream.requests.length, 0, 'nothing was forwarded');
});

t.test('double-encoded ".", "/" and "\\" are refused with 400 and never forwarded', async (t) => {
  const s = await setup(t);
  for (const path of [
    'tools/%252e%252e%252fsecret',
    'tools/%252e%252e/x.bin',
    'tools/a%255cb.bin',
    'tools/x%2500.bin',
    '%252E%252E%252Fetc/passwd',
  ]) {
    const res = await s.get(path);
    t.equal(res.status, 400, path);
  }
  t.equal(s.upstream.requests.length, 0, 'nothing was forwarded');
});

t.test('real repository file names keep working: +, ~, :, = and a literal %25', async (t) => {
  const s = await setup(t);
  for (const path of [
    'pool/main/l/libc6_2.36-9+deb12u1_amd64.bin',
    'x/pkg-1.0~rc1-1.el9.x86_64.bin',
    'y/a:b=c.bin',
    'z/100%25.bin',
  ]) {
    const res = await s.get(path);
    t.equal(res.status, 200, path);
  }
  t.ok(
    s.upstream.requests.some((r) => r.url === '/z/100%25.bin'),
    'a literal % goes upstream encoded once',
  );
});
