/**
 * A loopback npm upstream made of the workspace's own installed packages: every `node_modules/<name>` folder
 * (nested ones too) is one version, served as a packument and a tarball made on the fly (the folder under
 * `package/`, its own node_modules left out). It runs in a worker thread (workspace-upstream.ts starts it):
 * packing typescript or better-sqlite3 takes seconds of CPU that must not stall the hub under test.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

interface Found {
  dir: string;
  manifest: Record<string, unknown>;
}

interface Packed {
  tgz: Buffer;
  integrity: string;
  shasum: string;
}

/** The package folders below `nodeModules` (real folders only: workspace links are not third-party packages). */
function collect(nodeModules: string, into: Map<string, Map<string, Found>>): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(nodeModules, { withFileTypes: true });
  } catch {
    return;
  }
  const visit = (dir: string, entry: fs.Dirent) => {
    if (!entry.isDirectory()) return; // a symbolic link is a workspace package
    let manifest: Record<string, unknown>;
    try {
      manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    } catch {
      return;
    }
    const { name, version } = manifest;
    if (typeof name === 'string' && typeof version === 'string' && !name.startsWith('@hub/')) {
      const versions = into.get(name) ?? new Map<string, Found>();
      if (!versions.has(version)) versions.set(version, { dir, manifest });
      into.set(name, versions);
    }
    collect(path.join(dir, 'node_modules'), into);
  };
  for (const e of entries) {
    if (e.name.startsWith('.')) continue;
    const p = path.join(nodeModules, e.name);
    if (e.name.startsWith('@') && e.isDirectory())
      for (const s of fs.readdirSync(p, { withFileTypes: true })) visit(path.join(p, s.name), s);
    else visit(p, e);
  }
}

/** One ustar header; a path past 100 bytes is split into prefix and name, as ustar allows. */
function header(name: string, size: number, mode: number): Buffer {
  const h = Buffer.alloc(512);
  let prefix = '';
  let base = name;
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    prefix = name.slice(0, cut);
    base = name.slice(cut + 1);
    if (cut < 0 || Buffer.byteLength(prefix) > 155 || Buffer.byteLength(base) > 100)
      throw new Error(`tar: path too long for ustar: ${name}`);
  }
  h.write(base, 0, 100, 'utf8');
  h.write(`${mode.toString(8).padStart(7, '0')}\0`, 100);
  h.write('0000000\0', 108);
  h.write('0000000\0', 116);
  h.write(`${size.toString(8).padStart(11, '0')}\0`, 124);
  h.write(`${(1704067200).toString(8).padStart(11, '0')}\0`, 136);
  h.fill(' ', 148, 156);
  h.write('0', 156);
  h.write('ustar\0', 257);
  h.write('00', 263);
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  return h;
}

const gzipAsync = promisify(gzip);

/**
 * The folder as npm packs it: regular files under `package/`, sorted, nested node_modules left out. Reads and
 * gzip run off the event loop, so packuments and finished tarballs are served while a large package packs.
 */
async function pack(dir: string): Promise<Packed> {
  const blocks: Buffer[] = [];
  const walk = async (rel: string) => {
    const entries = (await fs.promises.readdir(path.join(dir, rel), { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    );
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (e.name !== 'node_modules') await walk(r);
      } else if (e.isFile()) {
        const file = path.join(dir, r);
        const [data, stat] = await Promise.all([fs.promises.readFile(file), fs.promises.stat(file)]);
        blocks.push(
          header(`package/${r}`, data.length, stat.mode & 0o111 ? 0o755 : 0o644),
          data,
          Buffer.alloc((512 - (data.length % 512)) % 512),
        );
      }
    }
  };
  await walk('');
  blocks.push(Buffer.alloc(1024));
  const tgz = await gzipAsync(Buffer.concat(blocks), { level: 1 });
  return {
    tgz,
    integrity: `sha512-${crypto.createHash('sha512').update(tgz).digest('base64')}`,
    shasum: crypto.createHash('sha1').update(tgz).digest('hex'),
  };
}

/** Serves every package found below the given node_modules folders, on 127.0.0.1; tells the parent its address. */
async function serve(nodeModulesDirs: readonly string[]): Promise<void> {
  const found = new Map<string, Map<string, Found>>();
  for (const d of nodeModulesDirs) collect(d, found);
  const packed = new Map<string, Promise<Packed>>();
  const packedOf = (name: string, version: string, f: Found) => {
    const key = `${name}@${version}`;
    let p = packed.get(key);
    if (!p) packed.set(key, (p = pack(f.dir)));
    return p;
  };
  const state = { asked: new Set<string>(), served: 0 };
  let base = '';

  const packument = async (name: string): Promise<Record<string, unknown> | null> => {
    const versions = found.get(name);
    if (!versions) return null;
    const out: Record<string, unknown> = {};
    const time: Record<string, string> = { created: '2024-01-01T00:00:00.000Z', modified: '2024-01-01T00:00:00.000Z' };
    for (const [version, f] of versions) {
      const p = await packedOf(name, version, f);
      const tarball = `${base}/-/tarballs/${encodeURIComponent(name)}/${encodeURIComponent(version)}.tgz`;
      out[version] = {
        ...f.manifest,
        name,
        version,
        _id: `${name}@${version}`,
        dist: { tarball, integrity: p.integrity, shasum: p.shasum },
      };
      time[version] = '2024-01-01T00:00:00.000Z';
    }
    const latest = [...versions.keys()].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1)!;
    return { _id: name, name, 'dist-tags': { latest }, versions: out, time };
  };

  const server = http.createServer((req, res) => void answer(req, res));
  const answer = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const send = (status: number, body: Buffer | string, type: string) => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    try {
      const url = new URL(req.url ?? '/', 'http://upstream');
      const tar = /^\/-\/tarballs\/([^/]+)\/([^/]+)\.tgz$/.exec(url.pathname);
      if (tar) {
        const name = decodeURIComponent(tar[1]!);
        const version = decodeURIComponent(tar[2]!);
        const f = found.get(name)?.get(version);
        if (!f) return send(404, '{"error":"not found"}', 'application/json');
        state.served++;
        return send(200, (await packedOf(name, version, f)).tgz, 'application/octet-stream');
      }
      const name = decodeURIComponent(url.pathname.slice(1));
      state.asked.add(name);
      const doc = await packument(name);
      return doc
        ? send(200, JSON.stringify(doc), 'application/json')
        : send(404, '{"error":"not found"}', 'application/json');
    } catch (e) {
      return send(500, JSON.stringify({ error: (e as Error).message }), 'application/json');
    }
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  parentPort!.on('message', (m: string) => {
    if (m !== 'close') return;
    server.closeAllConnections();
    server.close(() => {
      parentPort!.postMessage({ asked: state.asked.size, served: state.served });
      parentPort!.close();
    });
  });
  parentPort!.postMessage({
    url: base,
    names: found.size,
    versions: [...found.values()].reduce((n, v) => n + v.size, 0),
  });
}

await serve(workerData as string[]);
