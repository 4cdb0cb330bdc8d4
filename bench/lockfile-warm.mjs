// hub warm over a large package-lock.json (issue 29): an npm fixture upstream of PACKAGES packages (valid
// tarballs: gzip of a tar, sha512 integrity in the packument) of SIZE bytes each, a hub with the default
// plugins, then `hub warm` in-process: its summary (entries, fetched, bytes, seconds), and a second run that
// finds everything held. `node bench/lockfile-warm.mjs [--short]` (BENCH_WARM_PACKAGES, BENCH_WARM_SIZE).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { makeTar, npmFixtureHandler, startFixtureUpstream } from '@hub/testkit';
import { main } from '../packages/cli/dist/src/main.js';
import { BENCH_ADMIN_TOKEN, benchHub } from './bench-hub.mjs';

const short = process.argv.includes('--short') || process.env.BENCH_SHORT === '1';
const PACKAGES = Number(process.env.BENCH_WARM_PACKAGES ?? (short ? 50 : 500));
const SIZE = Number(process.env.BENCH_WARM_SIZE ?? 256 * 1024);

export async function benchLockfileWarm() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-bench-warm-'));
  const root = path.join(dir, 'upstream');
  const packages = { '': { name: 'app' } };
  for (let i = 0; i < PACKAGES; i++) {
    const name = `bench-pkg-${i}`;
    const tgz = zlib.gzipSync(
      makeTar({
        'package/package.json': JSON.stringify({ name, version: '1.0.0' }),
        'package/blob.bin': crypto.randomBytes(SIZE),
      }),
    );
    const integrity = `sha512-${crypto.createHash('sha512').update(tgz).digest('base64')}`;
    fs.mkdirSync(path.join(root, name, '-'), { recursive: true });
    fs.writeFileSync(path.join(root, name, '-', `${name}-1.0.0.tgz`), tgz);
    const dist = {
      tarball: `{{UPSTREAM}}/${name}/-/${name}-1.0.0.tgz`,
      integrity,
      shasum: crypto.createHash('sha1').update(tgz).digest('hex'),
    };
    fs.writeFileSync(
      path.join(root, `${name}.json.tmpl`),
      JSON.stringify({
        name,
        'dist-tags': { latest: '1.0.0' },
        versions: { '1.0.0': { name, version: '1.0.0', dist } },
        time: { '1.0.0': '2020-01-01T00:00:00.000Z' },
      }),
    );
    packages[`node_modules/${name}`] = {
      version: '1.0.0',
      resolved: `https://upstream.example/${name}/-/${name}-1.0.0.tgz`,
      integrity,
    };
  }
  const lockfile = path.join(dir, 'package-lock.json');
  fs.writeFileSync(lockfile, JSON.stringify({ name: 'app', lockfileVersion: 3, packages }));
  const upstream = await startFixtureUpstream({ handler: npmFixtureHandler(root) });
  const hub = await benchHub({
    dir,
    toml: `max_json_body_bytes = 67108864\n[lockfile]\nmax_bytes = 67108864\n[[registries]]\nname = "npm"\ntype = "npm"\nupstream = "${upstream.url}"\n`,
  }).catch(async (e) => {
    await upstream.close();
    throw e;
  });
  const url = await hub.listen();
  const warm = async () => {
    let out = '';
    const code = await main(['warm', lockfile, '--json'], {
      out: (s) => void (out += s),
      err: () => {},
      env: { PATH: process.env.PATH, HUB_URL: url, HUB_TOKEN: BENCH_ADMIN_TOKEN },
    });
    return { code, summary: JSON.parse(out).summary };
  };
  try {
    const first = await warm();
    const second = await warm();
    return { packages: PACKAGES, size: SIZE, first, second };
  } finally {
    await hub.close();
    await upstream.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = await benchLockfileWarm();
  const s = r.first.summary;
  console.log(
    `hub warm: ${s.entries} entries of ${r.size} bytes: ${s.fetched} fetched, ${s.refused} refused, ${s.failed} failed, ${s.bytes} bytes in ${s.seconds}s (${(s.bytes / 1048576 / s.seconds).toFixed(1)} MiB/s); exit ${r.first.code}`,
  );
  console.log(
    `again: ${r.second.summary.already_held} already held in ${r.second.summary.seconds}s; exit ${r.second.code}`,
  );
}
