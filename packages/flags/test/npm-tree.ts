/** An npm fixture folder written from a list of versions and their dependencies (npmFixtureHandler serves it). */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { makeTar } from '@hub/testkit';

export type TreeVersion = { name: string; version: string; dependencies?: Record<string, string> };

/** Real tarballs (package.json and index.js) and full packuments with sha512 integrity, as a registry has them. */
export function writeNpmTree(root: string, versions: readonly TreeVersion[]): void {
  const byName = new Map<string, TreeVersion[]>();
  for (const v of versions) byName.set(v.name, [...(byName.get(v.name) ?? []), v]);
  for (const [name, list] of byName) {
    const doc = {
      _id: name,
      name,
      'dist-tags': { latest: list.at(-1)!.version },
      versions: {} as Record<string, unknown>,
      time: { created: '2024-01-01T00:00:00.000Z', modified: '2024-01-01T00:00:00.000Z' } as Record<string, string>,
    };
    for (const v of list) {
      const manifest = {
        name,
        version: v.version,
        main: 'index.js',
        license: 'MIT',
        dependencies: v.dependencies ?? {},
      };
      const tgz = zlib.gzipSync(
        makeTar({
          'package/package.json': JSON.stringify(manifest),
          'package/index.js': `module.exports = ${JSON.stringify(`${name}@${v.version}`)};\n`,
        }),
      );
      const file = `${name}-${v.version}.tgz`;
      fs.mkdirSync(path.join(root, name, '-'), { recursive: true });
      fs.writeFileSync(path.join(root, name, '-', file), tgz);
      doc.versions[v.version] = {
        ...manifest,
        _id: `${name}@${v.version}`,
        dist: {
          tarball: `{{UPSTREAM}}/${name}/-/${file}`,
          shasum: crypto.createHash('sha1').update(tgz).digest('hex'),
          integrity: `sha512-${crypto.createHash('sha512').update(tgz).digest('base64')}`,
        },
      };
      doc.time[v.version] = '2024-01-01T00:00:00.000Z';
    }
    fs.writeFileSync(path.join(root, `${name}.json.tmpl`), JSON.stringify(doc));
  }
}
