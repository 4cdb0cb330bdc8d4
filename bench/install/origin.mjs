// The install workload's origin: an npm registry serving a generated project (bench/install/generate.mjs)
// from memory, each answer after an added latency (a distant registry), counting requests and bytes by kind.
// Packuments name their tarballs on the Host the request came with (as a registry behind a proxy that keeps the
// Host does), and come abbreviated (install-v1) when the Accept header asks for it, full otherwise.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const CORGI = 'application/vnd.npm.install-v1+json';

/** `dir`: a generated project; `latencyMs`: [min, max] added before each answer. */
export async function startOrigin({ dir, latencyMs = [20, 40] }) {
  const packuments = new Map();
  for (const f of fs.readdirSync(path.join(dir, 'packuments'))) {
    const full = fs.readFileSync(path.join(dir, 'packuments', f), 'utf8');
    const doc = JSON.parse(full);
    const corgi = {
      name: doc.name,
      modified: doc.time.modified,
      'dist-tags': doc['dist-tags'],
      versions: Object.fromEntries(
        Object.entries(doc.versions).map(([v, m]) => [
          v,
          { name: m.name, version: v, dependencies: m.dependencies, dist: m.dist },
        ]),
      ),
    };
    packuments.set(doc.name, { full: full.split('{{ORIGIN}}'), corgi: JSON.stringify(corgi).split('{{ORIGIN}}') });
  }
  const tarballs = new Map(); // "/name/-/file.tgz" -> Buffer, read on first ask
  const counts = { packument: 0, tarball: 0, other: 0, bytes: 0 };
  let lastRequestAt = Date.now();
  let served = 0;
  const [lo, hi] = latencyMs;

  const server = http.createServer((req, res) => {
    lastRequestAt = Date.now();
    let url;
    try {
      url = decodeURIComponent((req.url ?? '/').split('?')[0]);
    } catch {
      url = '';
    }
    const tar = /^\/((?:@[^/]+\/)?[^/@]+)\/-\/([^/]+\.tgz)$/.exec(url);
    let body;
    let type = 'application/json';
    if (tar) {
      counts.tarball++;
      const key = `/${tar[1]}/-/${tar[2]}`;
      if (!tarballs.has(key)) {
        const file = path.join(dir, 'tarballs', tar[1], '-', tar[2]);
        tarballs.set(key, fs.existsSync(file) && !tar[2].includes('..') ? fs.readFileSync(file) : null);
      }
      body = tarballs.get(key);
      type = 'application/octet-stream';
    } else {
      const doc = packuments.get(url.slice(1));
      if (doc) {
        counts.packument++;
        const corgi = (req.headers.accept ?? '').includes(CORGI);
        body = Buffer.from((corgi ? doc.corgi : doc.full).join(`http://${req.headers.host}`));
        type = corgi ? CORGI : 'application/json';
      } else counts.other++;
    }
    // Spread evenly over [lo, hi] rather than random, so every run sees the same latencies.
    const delay = lo + ((served++ * 7) % (hi - lo + 1));
    setTimeout(() => {
      if (!body) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
      counts.bytes += body.length;
      res.writeHead(200, { 'content-type': type, 'content-length': String(body.length) });
      res.end(req.method === 'HEAD' ? undefined : body);
    }, delay);
  });
  server.keepAliveTimeout = 30e3;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    port: server.address().port,
    /** Counts since the last call, then zeroed. */
    take() {
      const c = { ...counts };
      Object.assign(counts, { packument: 0, tarball: 0, other: 0, bytes: 0 });
      return c;
    },
    /**
     * Resolves once no request has arrived for `quietMs` (at most `maxMs`): what a server still asks in the
     * background after an install (hub's provenance checks read the abbreviated packument) is done by then.
     */
    async quiet(quietMs = 2000, maxMs = 60_000) {
      const until = Date.now() + maxMs;
      while (Date.now() - lastRequestAt < quietMs && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
