// A 200 MiB container image layer through hub's oci kind (issue 17): cold (fetched from the upstream,
// verified against its sha256 while it streams to the client) and warm (from the cache), one client each,
// and how far hub's RSS rose meanwhile (a layer is streamed, never buffered). Run alone or from run.mjs.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import oci from '@hub/kind-oci';
import { benchHub } from './bench-hub.mjs';

const SIZE = Number(process.env.BENCH_OCI_LAYER_MIB ?? 200) * 1024 * 1024;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-oci-'));
const layerFile = path.join(dir, 'layer.bin');
const hash = crypto.createHash('sha256');
{
  const out = fs.createWriteStream(layerFile);
  for (let done = 0; done < SIZE; done += 4 * 1024 * 1024) {
    const chunk = crypto.randomBytes(Math.min(4 * 1024 * 1024, SIZE - done));
    hash.update(chunk);
    if (!out.write(chunk)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r) => out.end(r));
}
const digest = `sha256:${hash.digest('hex')}`;

// The upstream registry: anonymous, one blob, streamed from disk.
const upstream = http.createServer((req, res) => {
  if (req.url === '/v2/') return res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  if (req.url !== `/v2/bench/layer/blobs/${digest}`) return res.writeHead(404).end();
  res.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-length': SIZE,
    'docker-content-digest': digest,
  });
  fs.createReadStream(layerFile, { highWaterMark: 256 * 1024 }).pipe(res);
});
await new Promise((r) => upstream.listen(0, '127.0.0.1', r));

const hub = await benchHub({
  plugins: [oci],
  dir,
  log: null,
  toml: `
[auth]
anonymous = ["source:read"]
[[registries]]
name = "dock"
type = "oci"
upstream = "http://127.0.0.1:${upstream.address().port}"
`,
});
const hubUrl = await hub.listen();
const url = `${hubUrl}/v2/dock/bench/layer/blobs/${digest}`;

/** One GET read to its end: seconds, bytes, and the highest RSS seen meanwhile. */
async function pull() {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const start = process.hrtime.bigint();
  let bytes = 0;
  await new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`hub answered ${res.statusCode}`));
        res.on('data', (c) => (bytes += c.length));
        res.on('end', resolve);
        res.on('error', reject);
      })
      .on('error', reject);
  });
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  clearInterval(timer);
  if (bytes !== SIZE) throw new Error(`read ${bytes} bytes, expected ${SIZE}`);
  return { secs, peak };
}

const before = process.memoryUsage().rss;
const cold = await pull();
await hub.artifacts.idle();
const warm = await pull();
const row = (label, r) => ({
  layer: `${SIZE / 1024 / 1024} MiB`,
  pull: label,
  seconds: +r.secs.toFixed(2),
  'MB/s': +(SIZE / r.secs / 1e6).toFixed(1),
  'RSS rise MiB': +((r.peak - before) / 1024 / 1024).toFixed(1),
});
console.log(
  `oci kind: one ${SIZE / 1024 / 1024} MiB layer through /v2/dock/..., one client (hub and client in one process; RSS is theirs together)`,
);
console.table([row('cold (upstream, verified while streaming)', cold), row('warm (cache)', warm)]);

await hub.close();
await new Promise((r) => upstream.close(r));
fs.rmSync(dir, { recursive: true, force: true });
