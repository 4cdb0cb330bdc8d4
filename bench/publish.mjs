// One large `npm publish` (issue 26): a PUT of the packument with a 200 MiB tarball in base64 (20 MiB with
// --short) to a local npm registry of a hub in its own process. Measures the publish's time, how far the
// hub's RSS rose meanwhile, and the slowest /healthz answer while it ran (one probe after another, each timed).
// The body is streamed from disk by the client, so the client's memory is not the hub's. Run from run.mjs
// (`BENCH_ONLY=publish npm run bench`) or alone: `node bench/publish.mjs [--short]`.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import zlib from 'node:zlib';
import { spawn } from 'node:child_process';
import { makeTar } from '@hub/testkit';

const MiB = 1024 * 1024;

function rssBytes(pid) {
  return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
}

/** A valid .tgz of `size` incompressible bytes, written to `file`; its sha512 and sha1. */
function writeTarball(file, name, size) {
  const tar = makeTar(
    {
      'package/package.json': JSON.stringify({ name, version: '1.0.0' }),
      'package/filler.bin': crypto.randomBytes(size),
    },
    { mtime: 1700000000 },
  );
  const tgz = zlib.gzipSync(tar, { level: 0 });
  fs.writeFileSync(file, tgz);
  return {
    size: tgz.length,
    sha512: crypto.createHash('sha512').update(tgz).digest('base64'),
    sha1: crypto.createHash('sha1').update(tgz).digest('hex'),
  };
}

/** The body npm sends, streamed: the document around the tarball's base64, read from disk in 3-byte-aligned pieces. */
function publishBody(name, file, t) {
  const doc = {
    _id: name,
    name,
    'dist-tags': { latest: '1.0.0' },
    versions: {
      '1.0.0': {
        name,
        version: '1.0.0',
        _id: `${name}@1.0.0`,
        dist: { integrity: `sha512-${t.sha512}`, shasum: t.sha1 },
      },
    },
    access: null,
    _attachments: {
      [`${name}-1.0.0.tgz`]: { content_type: 'application/octet-stream', data: '@DATA@', length: t.size },
    },
  };
  const [head, tail] = JSON.stringify(doc).split('@DATA@');
  const length = Buffer.byteLength(head) + Math.ceil(t.size / 3) * 4 + Buffer.byteLength(tail);
  async function* body() {
    yield Buffer.from(head);
    for await (const chunk of fs.createReadStream(file, { highWaterMark: 3 * 64 * 1024 }))
      yield Buffer.from(chunk.toString('base64'));
    yield Buffer.from(tail);
  }
  return { length, body };
}

/** GET /healthz one after another until `stop()`: the slowest answer in ms, and how many. */
function healthProbe(url) {
  let max = 0;
  let count = 0;
  let stopped = false;
  const once = () =>
    new Promise((resolve) => {
      const start = process.hrtime.bigint();
      http
        .get(`${url}/healthz`, { agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(Number(process.hrtime.bigint() - start) / 1e6));
        })
        .on('error', () => resolve(Number(process.hrtime.bigint() - start) / 1e6));
    });
  const loop = (async () => {
    while (!stopped) {
      max = Math.max(max, await once());
      count++;
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    return { max, count };
  };
}

export async function benchPublish({ short = false } = {}) {
  const size = Number(process.env.BENCH_PUBLISH_MIB ?? (short ? 20 : 200)) * MiB;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-publish-'));
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'publish-hub.mjs')], {
    // The body is base64 (4/3 of the tarball), and counts toward max_publish_bytes: leave room for it.
    env: { ...process.env, HUB_DIR: dir, MAX_PUBLISH_BYTES: String(2 * size + 64 * MiB) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const info = JSON.parse(
      await new Promise((resolve, reject) => {
        readline.createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`publish hub exited with ${code}`)));
      }),
    );
    const name = 'bench-publish';
    const file = path.join(dir, 'tarball.tgz');
    const t = writeTarball(file, name, size);
    const { length, body } = publishBody(name, file, t);

    const before = rssBytes(info.pid);
    let peak = before;
    const rss = setInterval(() => (peak = Math.max(peak, rssBytes(info.pid))), 20);
    const stopProbe = healthProbe(info.url);
    const start = process.hrtime.bigint();
    const status = await new Promise((resolve, reject) => {
      const req = http.request(
        `${info.url}/proxy/internal/${name}`,
        {
          method: 'PUT',
          agent: false,
          headers: {
            authorization: `Bearer ${info.token}`,
            'content-type': 'application/json',
            'content-length': length,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        },
      );
      req.on('error', reject);
      (async () => {
        for await (const chunk of body()) if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
        req.end();
      })().catch(reject);
    });
    const secs = Number(process.hrtime.bigint() - start) / 1e9;
    clearInterval(rss);
    const health = await stopProbe();
    if (status !== 201) throw new Error(`the publish answered ${status}`);
    const row = {
      tarball: `${size / MiB} MiB`,
      body: `${(length / MiB).toFixed(1)} MiB`,
      seconds: +secs.toFixed(2),
      'RSS rise MiB': +((peak - before) / MiB).toFixed(1),
      'healthz max ms': +health.max.toFixed(1),
      'healthz probes': health.count,
    };
    console.log("\npublish: one npm publish to a local registry (hub in its own process; RSS is the hub's)");
    console.table([row]);
    return row;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`)
  await benchPublish({ short: process.argv.includes('--short') || process.env.BENCH_SHORT === '1' });
