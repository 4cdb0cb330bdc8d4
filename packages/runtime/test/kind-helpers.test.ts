import { Readable } from 'node:stream';
import t from 'tap';
import { startFixtureUpstream } from '@hub/testkit';
import { isHubError, looksLikeHtml, nameAtVersion, probeAnswer, probeFetch, readCapped } from '../src/index.js';
import { createUpstreamClient } from '@hub/upstream';

t.test('nameAtVersion: splits at the first or last @, checks and normalizes both halves, round-trips', async (t) => {
  const last = nameAtVersion({ split: 'last', isName: (n) => /^(@[a-z]+\/)?[a-z]+$/.test(n) });
  t.same(last.parse('@scope/pkg@1.0.0'), { name: '@scope/pkg', version: '1.0.0' });
  t.same(last.parse('@scope/pkg'), { name: '@scope/pkg' }, 'a leading @ never separates');
  t.same(last.parse('pkg@anything'), { name: 'pkg', version: 'anything' }, 'any version without isVersion');
  t.equal(last.parse('pkg@'), null, 'an empty version is malformed');
  t.equal(last.parse('Pkg@1'), null, 'the name is checked');
  t.equal(last.normalizeName, undefined, 'no normalizeName unless given');
  for (const c of [{ name: '@scope/pkg', version: '1.0.0' }, { name: 'pkg' }])
    t.same(last.parse(last.format(c)), c, `${last.format(c)} round-trips`);

  const first = nameAtVersion({
    split: 'first',
    isName: (n) => /^[a-z]+\/[a-z]+$/i.test(n),
    isVersion: (v) => !v.includes('/'),
    normalizeName: (n) => n.toLowerCase(),
    normalizeVersion: (v) => (v === 'bad' ? null : v.toLowerCase()),
  });
  t.same(
    first.parse('Octo/Tool@Pkg@V1.0'),
    { name: 'octo/tool', version: 'pkg@v1.0' },
    'the first @ separates; both normalized',
  );
  t.same(first.parse('Octo/Tool'), { name: 'octo/tool' });
  t.equal(first.parse('octo/tool@a/b'), null, 'isVersion refuses');
  t.equal(first.parse('octo/tool@bad'), null, 'normalizeVersion refuses');
  t.equal(first.parse('@octo/tool'), null);
  t.equal(first.normalizeName?.('A/B'), 'a/b');
});

t.test('looksLikeHtml: doctype or html tag after a BOM and white space, within the first 512 bytes', async (t) => {
  for (const page of [
    '<!DOCTYPE html><p>',
    '<html>',
    '\ufeff <HTML lang="en">',
    '\r\n\t<!doctype  HTML>',
    '<html\n>',
    ' '.repeat(400) + '<html>',
  ])
    t.ok(looksLikeHtml(Buffer.from(page)), JSON.stringify(page.slice(0, 30)));
  for (const other of [
    '',
    '<?xml version="1.0"?><html/>',
    '{"html": 1}',
    '<!doctype xml>',
    '<htm',
    '<htmlx>',
    'PK\x03\x04<html>',
    ' '.repeat(600) + '<html>',
  ])
    t.notOk(looksLikeHtml(Buffer.from(other)), JSON.stringify(other.slice(0, 30)));
  t.ok(looksLikeHtml(Buffer.from('xx<html>').subarray(2)), 'a subarray is read from its own start');
});

t.test(
  'readCapped: the whole stream up to the cap; past it the stream is destroyed and the error thrown',
  async (t) => {
    t.same(
      await readCapped(Readable.from([Buffer.from('ab'), Buffer.from('cd')]), 4),
      Buffer.from('abcd'),
      'exactly the cap',
    );
    const over = Readable.from([Buffer.from('ab'), Buffer.from('cde'), Buffer.from('never read')]);
    const e = await readCapped(over, 4).catch((x: unknown) => x);
    t.ok(isHubError(e) && e.code === 'upstream_error', 'a 502 by default');
    t.ok(over.destroyed, 'the stream is destroyed');
    await t.rejects(
      readCapped(Readable.from([Buffer.alloc(10)]), 4, () => new Error('too big for the SBOM')),
      { message: 'too big for the SBOM' },
    );
  },
);

t.test('probeFetch: a capped body for 2xx, never throws, failures are status 0 (inconclusive)', async (t) => {
  const up = await startFixtureUpstream({
    handler: async (req, res) => {
      if (req.url === '/ok') res.writeHead(200, { 'content-type': 'text/plain' }).end('12345');
      else if (req.url === '/big') res.writeHead(200).end(Buffer.alloc(64 * 1024));
      else if (req.url === '/chunked-big') {
        res.writeHead(200, { 'transfer-encoding': 'chunked' });
        for (let i = 0; i < 64; i++) res.write(Buffer.alloc(1024));
        res.end();
      } else if (req.url === '/gone') res.writeHead(404).end('a long explanation nobody reads');
      else if (req.url === '/down') res.writeHead(503).end();
      else return false;
      return true;
    },
  });
  t.teardown(() => up.close());
  const client = createUpstreamClient({ origin: up.url, userAgent: 'hub/test', forbiddenNetworks: [] });
  t.teardown(() => client.close());

  const ok = await probeFetch(client, `${up.url}/ok`, { maxBytes: 5 });
  t.same([ok.status, ok.body.toString(), ok.contentType], [200, '12345', 'text/plain']);
  const head = await probeFetch(client, `${up.url}/ok`, { maxBytes: 5, method: 'HEAD' });
  t.same([head.status, head.body.length], [200, 0], 'HEAD reads no body');
  const gone = await probeFetch(client, `${up.url}/gone`, { maxBytes: 5 });
  t.same(
    [gone.status, gone.body.length, probeAnswer(gone.status)],
    [404, 0, 'absent'],
    'a 404 body is not read, whatever its size',
  );
  t.equal(probeAnswer((await probeFetch(client, `${up.url}/down`, { maxBytes: 5 })).status), 'inconclusive');
  for (const p of ['/big', '/chunked-big']) {
    const big = await probeFetch(client, `${up.url}${p}`, { maxBytes: 1024 });
    t.equal(big.status, 0, `${p}: a body past the cap is a failure`);
    t.equal(probeAnswer(big.status), 'inconclusive', 'which decides nothing');
    t.match(big.error, /size limit|exceeds/);
  }
  const refused = await probeFetch(client, 'http://127.0.0.1:1/nothing', { maxBytes: 5 });
  t.equal(refused.status, 0, 'a transport failure is status 0');
  t.ok(refused.error);
});
