/** Hand-made tarballs and raw requests for npm refusal tests; the npm client itself is in @hub/testkit. */
export { npmEnv, type NpmEnv, type NpmResult } from '@hub/testkit';
import { makeTar } from '@hub/testkit';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import http from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

export const hasNpm = await promisify(execFile)('npm', ['--version']).then(
  () => true,
  () => false,
);

/** A gzipped tarball of `files`. */
export const tgz = (files: Record<string, string>): Buffer => zlib.gzipSync(makeTar(files, { mtime: 1700000000 }));

/** The packument body `npm publish` sends for one version (the same fields npm 11 sends). */
export function publishBody(
  name: string,
  version: string,
  tarball: Buffer,
  over: {
    manifest?: Record<string, unknown>;
    integrity?: string;
    shasum?: string;
    attachment?: string;
    distTags?: Record<string, string>;
  } = {},
) {
  const integrity = over.integrity ?? `sha512-${crypto.createHash('sha512').update(tarball).digest('base64')}`;
  const shasum = over.shasum ?? crypto.createHash('sha1').update(tarball).digest('hex');
  return {
    _id: name,
    name,
    'dist-tags': over.distTags ?? { latest: version },
    versions: {
      [version]: {
        name,
        version,
        _id: `${name}@${version}`,
        dist: { integrity, shasum, tarball: `http://127.0.0.1:9/${name}/-/${name}-${version}.tgz` },
        ...over.manifest,
      },
    },
    access: null,
    _attachments: {
      [over.attachment ?? `${name}-${version}.tgz`]: {
        content_type: 'application/octet-stream',
        data: tarball.toString('base64'),
        length: tarball.length,
      },
    },
  };
}

/** A request with a body, its path sent exactly as written (rawRequest sends none). */
export function send(
  url: string,
  opts: { method: string; headers?: Record<string, string>; body?: Buffer },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  const u = new URL(url);
  const rawPath = url.slice(url.indexOf('/', url.indexOf('//') + 2));
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: u.hostname, port: u.port, path: rawPath, method: opts.method, headers: opts.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}
