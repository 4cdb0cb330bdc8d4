// The metadata-hit case of bench/run.mjs (BENCH_ONLY=metadata-hit, issue 32): a warm hit of a 200 KB packument
// (the full one, as npm 11 asks for it), served identity and gzip, and its 304 revalidation, against nginx serving
// the bytes hub served from a file in the same run. Reported per case: req/s and the server's CPU µs per request
// (from /proc over the whole load), which is the figure to compare across runs on a shared machine.
import fs from 'node:fs';
import path from 'node:path';

/** A packument of about `bytes` of JSON: `name`'s history, each version with its manifest, dist fields and time. */
export function bigPackument(name, bytes, tarballBase) {
  const versions = {};
  const time = {};
  let n = 0;
  for (let size = 0; size < bytes; n++) {
    const v = `1.${Math.floor(n / 10)}.${n % 10}`;
    const manifest = {
      name,
      version: v,
      description: `bench packument ${name}, version ${v}: enough text to look like a real manifest`,
      main: 'index.js',
      license: 'MIT',
      dependencies: { 'left-pad': `^1.${n % 3}.0`, 'is-number': '^7.0.0', [`dep-${n % 17}`]: `~2.${n % 5}.1` },
      repository: { type: 'git', url: `git+ssh://git@example.invalid/${name}.git` },
      dist: {
        tarball: `${tarballBase}/${name}/-/${name}-${v}.tgz`,
        shasum: (n * 2654435761).toString(16).padStart(40, '0').slice(0, 40),
        integrity: `sha512-${Buffer.alloc(64, n % 251).toString('base64')}`,
      },
    };
    versions[v] = manifest;
    time[v] = new Date(Date.UTC(2020, 0, 1) + n * 86_400_000).toISOString();
    size += JSON.stringify(manifest).length + 40;
  }
  const latest = Object.keys(versions).at(-1);
  return Buffer.from(JSON.stringify({ name, 'dist-tags': { latest }, versions, time, readme: `# ${name}\n` }));
}

/**
 * Runs the case: `hub` and `ref` as run.mjs starts them, `load(server, path, headers)` its load generator, `up` the
 * reference's document root. Returns the rows (also printed).
 */
export async function benchMetadataHit({ hub, ref, load, up, name }) {
  const url = `/proxy/npm/${name}`;
  const accept = { accept: 'application/json' };
  const first = await fetch(`${hub.url}${url}`, { headers: accept });
  if (first.status !== 200) throw new Error(`metadata hit: hub answered ${first.status}`);
  const served = Buffer.from(await first.arrayBuffer());
  const etag = first.headers.get('etag');
  // nginx serves the bytes hub served, as a file.
  fs.writeFileSync(path.join(up, `${name}.json`), served);
  const rows = [];
  const row = (label, r, a) =>
    rows.push({
      case: label,
      'req/s': Math.round(r.rps),
      'CPU µs/req': Math.round(r.cpuPerRequestUs),
      'MB/s': +(r.bytesPerSec / 1e6).toFixed(1),
      'p99 ms': +r.p99ms.toFixed(1),
      'vs nginx req/s': a ? +(r.rps / a.rps).toFixed(2) : '-',
    });
  const out = { bytes: served.length, etag };
  const a = await load(ref, `/${name}.json`);
  out.nginx = a;
  row(`nginx static, ${Math.round(served.length / 1000)} KB`, a);
  const h = await load(hub, url, accept);
  if (h.failures) throw new Error(`metadata hit: hub answered ${h.failures} failed requests`);
  out.identity = h;
  row('hub warm hit, identity', h, a);
  const gz = await fetch(`${hub.url}${url}`, { headers: { ...accept, 'accept-encoding': 'gzip' } });
  await gz.arrayBuffer();
  const hz = await load(hub, url, { ...accept, 'accept-encoding': 'gzip' });
  out.gzip = { ...hz, encoding: gz.headers.get('content-encoding') ?? 'identity' };
  row(`hub warm hit, Accept-Encoding gzip (sent ${out.gzip.encoding})`, hz, a);
  if (etag) {
    const nm = await load(hub, url, { ...accept, 'if-none-match': etag });
    out.notModified = nm;
    row('hub 304 (If-None-Match)', nm, a);
  } else rows.push({ case: 'hub 304 (If-None-Match)', 'req/s': 'no ETag served' });
  console.log(
    `\nmetadata hits: a ${Math.round(served.length / 1000)} KB full packument, warm; CPU µs per request from /proc`,
  );
  console.table(rows);
  return out;
}
