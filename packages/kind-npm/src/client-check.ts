/** `hub check --npm NAME` (packages/cli/README.md): both tarball routes, then what npm install does. */
import { createHash } from 'node:crypto';
import type { ClientCheck } from '@hub/contract';

export const clientCheck: ClientCheck = {
  option: 'npm-package',
  form: 'name@version',
  fallback: 'lodash@4.17.21',
  help: [
    'http: GET <package> with Accept */* and <package>/<version>/tarball are 200 gzip',
    'tool: the packument names a tarball that is gzip and matches dist.integrity',
  ],
  async run(kit, { name: pkg, version }) {
    const { attempt, get, ok200, gzipped, jsonOf, fail, printable, size, seg } = kit;
    const http = await attempt(async () => {
      const latest = gzipped(ok200(await get(pkg)));
      const pinned = gzipped(ok200(await get(`${pkg}/${seg(version)}/tarball`)));
      return `GET ${latest.what} (Accept */*) and ${pinned.what}: 200, gzip (${size(latest.body.length)}, ${size(pinned.body.length)})`;
    });
    // What npm install does: the abbreviated packument, then the tarball it names, checked against dist.integrity.
    const tool = await attempt(async () => {
      const doc = jsonOf(
        ok200(await get(pkg, 'application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*')),
      );
      const dist = (
        (
          doc.versions as
            Record<string, { dist?: { tarball?: unknown; integrity?: unknown; shasum?: unknown } }> | undefined
        )?.[version] ?? {}
      ).dist;
      if (!dist || typeof dist.tarball !== 'string')
        return fail(`the packument of ${pkg} has no version ${version} with a dist.tarball`);
      if (!/^https?:\/\//i.test(dist.tarball))
        return fail(
          `the packument of ${pkg} gives ${version} a dist.tarball that is not an http(s) URL: ${printable(dist.tarball.slice(0, 200))}`,
        );
      const tgz = gzipped(ok200(await get(dist.tarball)));
      const sri =
        typeof dist.integrity === 'string'
          ? /^sha512-([A-Za-z0-9+/=]+)$/.exec(dist.integrity.split(/\s+/).find((x) => x.startsWith('sha512-')) ?? '')
          : null;
      if (sri) {
        if (createHash('sha512').update(tgz.body).digest('base64') !== sri[1])
          fail(`${printable(dist.tarball)}: the tarball does not match dist.integrity`);
        return `packument -> ${printable(dist.tarball)}: gzip, sha512 matches dist.integrity`;
      }
      if (typeof dist.shasum === 'string') {
        if (createHash('sha1').update(tgz.body).digest('hex') !== dist.shasum.toLowerCase())
          fail(`${printable(dist.tarball)}: the tarball does not match dist.shasum`);
        return `packument -> ${printable(dist.tarball)}: gzip, sha1 matches dist.shasum`;
      }
      return `packument -> ${printable(dist.tarball)}: gzip (the packument gives no digest)`;
    });
    return { http, tool };
  },
};
