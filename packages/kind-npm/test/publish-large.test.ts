import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import v8 from 'node:v8';
import vm from 'node:vm';
import zlib from 'node:zlib';
import t, { type Test } from 'tap';
import { makeTar, rawRequest, startTestHub } from '@hub/testkit';
import publishing from '@hub/publishing';
import npm from '../src/index.js';
import { publishBody, send } from './npm-env.js';

/**
 * Issue 26, medium 5: a large npm publish is read as a stream. The tarball's base64 is decoded to a temp file as
 * it arrives, so the hub holds a chunk, not the body, the parsed string and the decoded bytes at once.
 */

const MiB = 1024 * 1024;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
// A full collection before the baseline, so garbage made before the publish does not hide what it holds.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;
const spoolFiles = () => new Set(fs.readdirSync(os.tmpdir()).filter((f) => f.startsWith('hub-npm-publish-')));
const existing = spoolFiles();
/** Temp files of this test's publishes still on disk. */
const leftovers = () => [...spoolFiles()].filter((f) => !existing.has(f));

async function start(t: Test) {
  const hub = await startTestHub({
    dir: t.testdir(),
    plugins: [npm, publishing],
    registries: [{ name: 'internal', type: 'npm', mode: 'local' }],
  });
  t.teardown(() => hub.close());
  return { ...hub, publisher: await hub.token('ci', { roles: ['publisher'] }), base: `${hub.url}/proxy/internal` };
}

/** A tarball of `bytes` random (incompressible) bytes behind a package.json. */
function bigTarball(name: string, version: string, bytes: number): Buffer {
  return zlib.gzipSync(
    makeTar(
      { 'package/package.json': JSON.stringify({ name, version }), 'package/blob.bin': crypto.randomBytes(bytes) },
      { mtime: 1700000000 },
    ),
    { level: 1 },
  );
}

t.test(
  'a 40 MiB publish is stored whole, its digests match, and the heap grows by far less than the body',
  async (t) => {
    const s = await start(t);
    const tarball = bigTarball('acme-big', '1.0.0', 40 * MiB);
    const body = Buffer.from(JSON.stringify(publishBody('acme-big', '1.0.0', tarball)));
    t.ok(body.length > 53 * MiB, `the body is ${body.length} bytes`);

    const used = () => {
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    gc();
    const before = used();
    let peak = before;
    // What is live, not garbage not yet collected: each sample follows a full collection (which takes a while).
    const sampler = setInterval(() => {
      gc();
      peak = Math.max(peak, used());
    }, 500);
    const res = await send(`${s.base}/acme-big`, {
      method: 'PUT',
      headers: { ...bearer(s.publisher), 'content-type': 'application/json' },
      body,
    });
    clearInterval(sampler);
    t.equal(res.status, 201, res.body.toString().slice(0, 300));
    const growth = peak - before;
    // Parsed whole, the body's string and the decoded tarball (over 90 MiB) were live while the file was spooled.
    t.ok(
      growth < 32 * MiB,
      `memory grew by ${(growth / MiB).toFixed(1)} MiB during a ${(body.length / MiB).toFixed(1)} MiB publish`,
    );

    const sha512 = crypto.createHash('sha512').update(tarball).digest('base64');
    const sha1 = crypto.createHash('sha1').update(tarball).digest('hex');
    const doc = JSON.parse(
      (
        await rawRequest(`${s.base}/acme-big`, { headers: { ...bearer(s.publisher), accept: 'application/json' } })
      ).body.toString(),
    ) as { versions: Record<string, { dist: { integrity: string; shasum: string } }> };
    t.equal(doc.versions['1.0.0']!.dist.integrity, `sha512-${sha512}`, 'the packument integrity is the tarball sha512');
    t.equal(doc.versions['1.0.0']!.dist.shasum, sha1, 'and its shasum the tarball sha1');
    const got = await rawRequest(`${s.base}/acme-big/-/acme-big-1.0.0.tgz`, { headers: bearer(s.publisher) });
    t.equal(got.status, 200);
    t.equal(
      crypto.createHash('sha512').update(got.body).digest('base64'),
      sha512,
      'the stored tarball is the one sent',
    );
    t.same(leftovers(), [], 'no temp file left');
  },
);

t.test(
  'truncated or malformed base64, a cut body, a wrong integrity: 400 with the reason, nothing stored',
  async (t) => {
    const s = await start(t);
    const tarball = bigTarball('acme-cut', '1.0.0', 200_000);
    const good = publishBody('acme-cut', '1.0.0', tarball);
    const withData = (data: string) =>
      JSON.stringify({
        ...good,
        _attachments: { 'acme-cut-1.0.0.tgz': { ...good._attachments['acme-cut-1.0.0.tgz'], data } },
      });
    const b64 = tarball.toString('base64');
    const cases: Array<[string, string, RegExp]> = [
      ['base64 cut short', withData(b64.slice(0, -3)), /truncated/],
      ['base64 with a stray character', withData(`${b64.slice(0, 5000)}!${b64.slice(5001)}`), /not base64/],
      ['a body cut in the middle of the data', JSON.stringify(good).slice(0, 100_000), /ended before/],
      [
        'an integrity that is not the decoded bytes',
        JSON.stringify(
          publishBody('acme-cut', '1.0.0', tarball, {
            integrity: `sha512-${crypto.createHash('sha512').update('other').digest('base64')}`,
          }),
        ),
        /sha512 .* does not match/,
      ],
      [
        'a length that is not the decoded bytes',
        JSON.stringify({
          ...good,
          _attachments: { 'acme-cut-1.0.0.tgz': { ...good._attachments['acme-cut-1.0.0.tgz'], length: 5 } },
        }),
        /length says "5" bytes/,
      ],
    ];
    for (const [what, text, message] of cases) {
      const r = await send(`${s.base}/acme-cut`, {
        method: 'PUT',
        headers: { ...bearer(s.publisher), 'content-type': 'application/json' },
        body: Buffer.from(text),
      });
      const error = (JSON.parse(r.body.toString()) as { error: { code: string; message: string } }).error;
      t.equal(r.status, 400, what);
      t.equal(error.code, 'bad_request');
      t.match(error.message, message, `${what}: ${error.message}`);
    }
    t.same(await s.hub.db('artifacts').select('cache_key'), [], 'nothing stored');
    t.same(await s.hub.db('local_versions').select('version'), [], 'no version recorded');
    t.same(leftovers(), [], 'no temp file left');
    const ok = await send(`${s.base}/acme-cut`, {
      method: 'PUT',
      headers: { ...bearer(s.publisher), 'content-type': 'application/json' },
      body: Buffer.from(JSON.stringify(good)),
    });
    t.equal(ok.status, 201, 'the whole body is then published');
  },
);
