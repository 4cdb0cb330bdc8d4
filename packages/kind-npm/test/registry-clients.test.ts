import type { IncomingMessage, ServerResponse } from 'node:http';
import t from 'tap';
import { chainHandlers, npmFixtureHandler, pathOf, startFixtureUpstream, startTestHub } from '@hub/testkit';
import npm from '../src/index.js';
import { FIXTURES, get, setup } from './setup.js';

const isGzip = (b: Buffer) => b[0] === 0x1f && b[1] === 0x8b;
const anonymous = { config: { auth: { anonymous: ['source:read'] } } };

// What the clients send, as captured from each on loopback (decision 0041).
const CLIENTS: Record<string, Record<string, string>> = {
  'yarn 4 (got, no Accept)': { 'user-agent': 'got (https://got.example/)', 'accept-encoding': 'gzip, deflate, br' },
  'yarn 1': {
    'user-agent': 'yarn/1.22.22 npm/? node/v20.20.2 linux x64',
    accept: 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*',
  },
  'yarn 1 without Accept': { 'user-agent': 'yarn/1.22.22 npm/? node/v20.20.2 linux x64' },
  pnpm: { 'user-agent': 'pnpm/10.34.9 npm/? node/v20.20.2 linux x64' },
  bun: { 'user-agent': 'Bun/1.1.38', accept: '*/*' },
  'npm, by its npm-command header': { 'npm-command': 'view', accept: '*/*' },
};
const DOWNLOADERS: Record<string, Record<string, string>> = {
  curl: { 'user-agent': 'curl/7.88.1', accept: '*/*' },
  wget: { 'user-agent': 'Wget/1.21.3', accept: '*/*' },
  'no headers': {},
  'a browser': { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)', accept: 'text/html,*/*;q=0.8' },
  'npm install <url> (pacote asks for a tarball)': {
    'user-agent': 'npm/11.19.1 node/v20.20.2',
    'pacote-req-type': 'tarball',
    accept: '*/*',
  },
};

t.test(
  'every npm-registry client gets the packument at GET /<package>, a plain downloader the latest tarball (#26)',
  async (t) => {
    const s = await setup(t, anonymous);
    for (const [client, headers] of Object.entries(CLIENTS)) {
      const res = await get(`${s.base}/hubdemo`, headers);
      t.equal(res.status, 200, client);
      t.match(res.headers.get('content-type'), /json/, `${client}: JSON`);
      t.equal(res.json()['dist-tags'].latest, '1.1.0', `${client}: the packument`);
      t.match(res.headers.get('vary'), /User-Agent/, `${client}: Vary names what chose the answer`);
    }
    const yarn4 = (await get(`${s.base}/hubdemo`, CLIENTS['yarn 4 (got, no Accept)']!)).json();
    t.ok(yarn4.time, 'no Accept: the full document (it alone has `time`)');
    for (const [who, headers] of Object.entries(DOWNLOADERS)) {
      const res = await get(`${s.base}/hubdemo`, headers);
      t.equal(res.status, 200, who);
      t.ok(isGzip(res.body), `${who}: the tarball (packages/kind-npm/README.md)`);
    }
  },
);

t.test('npm clients get an error body whose `error` npm prints; others the documented body (#26)', async (t) => {
  const s = await setup(t, anonymous);
  await s.hub.services.blocks.add({
    registry: 'npm',
    package_name: 'hubdemo',
    version: '1.1.0',
    reason: 'a bad release',
    by: 'admin',
  });
  const npmHeaders = { 'user-agent': 'npm/11.19.1 node/v20.20.2 linux x64 workspaces/false', 'npm-command': 'install' };
  const forNpm = await get(`${s.base}/hubdemo/-/hubdemo-1.1.0.tgz`, npmHeaders);
  t.equal(forNpm.status, 403);
  const body = forNpm.json();
  t.type(body.error, 'string', 'npm prints a string `error` (an object prints as [object Object])');
  t.match(body.error, /hubdemo 1\.1\.0 is blocked by admin: a bad release/);
  t.match(
    body,
    { code: 'package_blocked', message: body.error, request_id: forNpm.headers.get('x-request-id') },
    'the documented members, beside it',
  );

  const plain = await get(`${s.base}/hubdemo/-/hubdemo-1.1.0.tgz`, { 'user-agent': 'curl/7.88.1' });
  t.equal(plain.status, 403);
  t.match(
    plain.json(),
    { error: { code: 'package_blocked', message: /a bad release/, request_id: String } },
    'the docs/errors.md body for everyone else',
  );
});

t.test('not-found messages name the package, never an internal cache key (#26)', async (t) => {
  const s = await setup(t, anonymous);
  for (const accept of ['application/json', 'application/vnd.npm.install-v1+json']) {
    for (let i = 0; i < 2; i++) {
      // The second answer comes from the negative cache: the same message.
      const res = await get(`${s.base}/nosuchpkg`, { accept });
      t.equal(res.status, 404);
      t.equal(
        res.json().error.message,
        'nosuchpkg is not in the upstream of registry npm',
        `${accept}, ${i ? 'negative cache' : 'first'}`,
      );
    }
  }
  const tarball = await get(`${s.base}/hubdemo/-/hubdemo-9.9.9.tgz`);
  t.equal(tarball.status, 404);
  t.notMatch(tarball.json().error.message, /packument:|\/-\//, 'no key in the tarball refusal either');

  // An upstream that lists a version but has lost its file: the artifact's refusal names the coordinate.
  s.upstream.fault('/hubdep/-/', { type: 'status', status: 404 });
  const lost = await get(`${s.base}/hubdep/1.0.0/tarball`);
  t.equal(lost.status, 404);
  t.equal(lost.json().error.message, 'hubdep 1.0.0 is not in the upstream of registry npm');
});

t.test('an upstream version key cannot reshape the tarball URL: it is escaped (#26)', async (t) => {
  const hostile = ['1.0.0/../../x', '2.0.0?token=1#frag', '3.0.0 %2e%2e'];
  const upstream = await startFixtureUpstream({
    handler: chainHandlers((req: IncomingMessage, res: ServerResponse) => {
      if (pathOf(req.url) !== '/evil') return false;
      const versions = Object.fromEntries(
        hostile.map((v) => [
          v,
          { name: 'evil', version: v, dist: { tarball: `${upstream.url}/evil/-/evil.tgz`, shasum: 'a'.repeat(40) } },
        ]),
      );
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name: 'evil', 'dist-tags': { latest: hostile[0] }, versions }));
      return true;
    }, npmFixtureHandler(FIXTURES)),
  });
  t.teardown(() => upstream.close());
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [npm],
    registries: [{ name: 'npm', type: 'npm', mode: 'proxy', upstream: upstream.url }],
    config: anonymous.config,
  });
  t.teardown(() => hub.close());
  const doc = (await get(`${hub.url}/proxy/npm/evil`, { accept: 'application/json' })).json();
  for (const v of hostile) {
    const url = doc.versions[v].dist.tarball as string;
    t.equal(url, `${hub.url}/proxy/npm/evil/-/${encodeURIComponent(`evil-${v}.tgz`)}`, v);
    const u = new URL(url);
    t.equal(u.search + u.hash, '', `${v}: no query or fragment`);
    t.equal(u.pathname.split('/').length, 6, `${v}: one file segment below /proxy/npm/evil/-/`);
  }
});
