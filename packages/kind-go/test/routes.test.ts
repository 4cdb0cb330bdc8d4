import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import t from 'tap';
import { rawRequest } from '@hub/testkit';
import go from '../src/index.js';
import { FIXTURES, setup } from './setup.js';

const anon = { config: { auth: { anonymous: ['source:read'] } } };
const fixture = (p: string) => fs.readFileSync(path.join(FIXTURES, p));

t.test('the module proxy protocol: list, info, mod, zip, @latest', async (t) => {
  const s = await setup(t, anon);
  const list = await rawRequest(`${s.base}/example.com/!hub/demo/@v/list`);
  t.equal(list.status, 200);
  t.same(list.body.toString().trim().split('\n').sort(), ['v1.0.0', 'v1.1.0']);

  const latest = await rawRequest(`${s.base}/example.com/!hub/demo/@latest`);
  t.equal(latest.status, 200);
  t.equal(latest.json().Version, 'v1.1.0', '@latest answers {Version: ...}');

  const info = await rawRequest(`${s.base}/example.com/!hub/demo/@v/v1.0.0.info`);
  t.equal(info.json().Version, 'v1.0.0');
  const mod = await rawRequest(`${s.base}/example.com/!hub/demo/@v/v1.0.0.mod`);
  t.same(mod.body, fixture('example.com/!hub/demo/@v/v1.0.0.mod'));
  const zip = await rawRequest(`${s.base}/github.com/pkg/errors/@v/v0.9.1.zip`);
  t.equal(zip.status, 200);
  t.same(zip.body, fixture('github.com/pkg/errors/@v/v0.9.1.zip'), 'the module zip byte for byte');
});

t.test('a pinned-version fetch never needs /@v/list', async (t) => {
  const s = await setup(t, anon);
  for (const ext of ['info', 'mod', 'zip'])
    t.equal((await rawRequest(`${s.base}/github.com/pkg/errors/@v/v0.9.1.${ext}`)).status, 200, ext);
  t.equal(
    s.upstream.count((r) => r.url.endsWith('/@v/list')),
    0,
  );
});

t.test('case-escaped module paths: the escaped and %21 spellings are one module; bad escapes are 400', async (t) => {
  const s = await setup(t, anon);
  t.equal((await rawRequest(`${s.base}/example.com/!hub/demo/@v/v1.0.0.mod`)).status, 200);
  t.equal((await rawRequest(`${s.base}/example.com/%21hub/demo/@v/v1.0.0.mod`)).status, 200, 'go sends ! as %21');
  t.equal(
    s.upstream.count((r) => r.url.endsWith('v1.0.0.mod')),
    1,
    'one cache entry',
  );
  const upper = await rawRequest(`${s.base}/example.com/Hub/demo/@v/v1.0.0.mod`);
  t.equal(upper.status, 400, 'an upper-case letter must be escaped');
  t.equal(upper.json().error.code, 'bad_request');
  t.equal((await rawRequest(`${s.base}/example.com/!hub/demo/@v/notaversion.mod`)).status, 400);
});

t.test('unknown modules and versions are 404; hostile paths 400 with no upstream request', async (t) => {
  const s = await setup(t, anon);
  t.equal((await rawRequest(`${s.base}/example.com/nosuch/@v/v1.0.0.info`)).status, 404);
  t.equal((await rawRequest(`${s.base}/example.com/!hub/demo/@v/v9.9.9.zip`)).status, 404);
  const before = s.upstream.count();
  for (const p of [
    '/%2e%2e/%2e%2e/etc/passwd/@v/list',
    '/example.com/..%2f..%2fetc/@v/list',
    '/example.com/%00/@v/list',
    '/example.com/a%5cb/@v/list',
  ]) {
    const res = await rawRequest(`${s.base}${p}`);
    t.equal(res.status, 400, p);
    t.equal(res.json().error.code, 'bad_request', `${p} code`);
  }
  t.equal(s.upstream.count(), before, 'nothing reached the upstream');
});

t.test('/sumdb/<name>/... passes through to the checksum database unchanged', async (t) => {
  const s = await setup(t, anon);
  const res = await rawRequest(`${s.base}/sumdb/sum.example/lookup/github.com/pkg/errors@v0.9.1`);
  t.equal(res.status, 200);
  t.equal(res.body.toString(), 'sumdb answer for /lookup/github.com/pkg/errors@v0.9.1\n');
  t.equal((await rawRequest(`${s.base}/sumdb/sum.example/supported`)).status, 200);
});

t.test('probe ladder: present, absent, inconclusive', async (t) => {
  const s = await setup(t, anon);
  const reg = s.hub.registries.get('go')!;
  const pc = { registry: reg.info as never, upstream: reg.upstream, log: s.hub.log };
  const answers = await go.probe!(pc, 'github.com/pkg/errors', ['v0.9.1', 'v0.8.0']);
  t.same(
    answers.map((a) => [a.version, a.answer]),
    [
      ['v0.9.1', 'present'],
      ['v0.8.0', 'absent'],
    ],
  );
  t.same((await go.probe!(pc, 'example.com/gone', ['v1.0.0']))[0]?.answer, 'absent');
  s.upstream.fault('/github.com/pkg/errors/', { type: 'status', status: 503 });
  const down = await go.probe!(pc, 'github.com/pkg/errors', ['v0.9.1']);
  t.equal(down[0]?.answer, 'inconclusive', 'a 5xx is never absent');
});

t.test('SBOM: the requires of go.mod', async (t) => {
  const mod = fixture('example.com/!hub/demo/@v/v1.1.0.mod');
  t.ok(go.sbom!.appliesTo('example.com/Hub/demo/@v/v1.1.0.mod'));
  const deps = await go.sbom!.extract(Readable.from([mod]), { maxBytes: 1 << 20, maxEntries: 100 });
  t.same(deps, [{ name: 'github.com/pkg/errors', range: 'v0.9.1', scope: 'runtime' }]);
});

t.test('version order: numeric pre-release identifiers compare as numbers', async (t) => {
  const { compareGoVersions } = await import('../src/semver.js');
  const sorted = ['v1.0.0', 'v1.0.0-rc.10', 'v1.0.0-rc.2', 'v0.9.0', 'v1.0.0-alpha'].sort(compareGoVersions);
  t.same(sorted, ['v0.9.0', 'v1.0.0-alpha', 'v1.0.0-rc.2', 'v1.0.0-rc.10', 'v1.0.0']);
});

t.test('version order: pseudo-versions, +incompatible, and what is not a Go version', async (t) => {
  const { compareGoVersions, isRelease } = await import('../src/semver.js');
  const sorted = [
    'v2.0.0+incompatible',
    'v0.0.0-20200101000000-abcdefabcdef',
    'v1.2.4-0.20210101000000-abcdefabcdef',
    'v1.2.3',
    'v0.0.0-20190101000000-abcdefabcdef',
  ].sort(compareGoVersions);
  t.same(sorted, [
    'v0.0.0-20190101000000-abcdefabcdef',
    'v0.0.0-20200101000000-abcdefabcdef',
    'v1.2.3',
    'v1.2.4-0.20210101000000-abcdefabcdef',
    'v2.0.0+incompatible',
  ]);
  t.ok(isRelease('v2.0.0+incompatible'));
  t.notOk(isRelease('v1.2.4-0.20210101000000-abcdefabcdef'), 'a pseudo-version is no release');
  for (const bad of ['1.2.3', 'vv1.2.3', 'v=1.2.3', 'v01.2.3', 'v1.2', `v1.2.3-${'x'.repeat(300)}`]) {
    t.notOk(isRelease(bad), `${bad.slice(0, 20)} is not a Go version`);
    t.equal(compareGoVersions(bad, 'v0.0.1'), -1, `${bad.slice(0, 20)} sorts below every valid version`);
  }
});
