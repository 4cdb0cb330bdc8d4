import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import t from 'tap';
import { kindConformance } from '@hub/testkit';
import { apk, deb, generic, jetbrains, pacman, rpm } from '../src/index.js';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/', import.meta.url));
const real = (rel: string) => fs.readFileSync(path.join(FIXTURES, rel));
const gzip = gzipSync(Buffer.from('hub path-kind fixture\n'.repeat(64)));

/**
 * Two package files per kind, with the bytes each kind's checks expect (ar, rpm lead, zstd, gzip); the
 * same bytes under both names are enough: path kinds address files, not what is inside them.
 */
const KINDS = [
  {
    kind: deb,
    files: ['pool/main/h/hubdemo/hubdemo_1.0_all.deb', 'pool/main/h/hubdemo/hubdemo_1.1_all.deb'],
    bytes: real('debrepo/pool/main/h/hubdemo/hubdemo_1.0_all.deb'),
  },
  {
    kind: rpm,
    files: ['Packages/hubdemo-1.0.0-1.noarch.rpm', 'Packages/hubdemo-1.1.0-1.noarch.rpm'],
    bytes: real('rpmrepo/Packages/hubdemo-1.0.0-1.noarch.rpm'),
  },
  {
    kind: pacman,
    files: ['hubrepo/os/x86_64/hubdemo-1.0.0-1-any.pkg.tar.zst', 'hubrepo/os/x86_64/hubdemo-1.1.0-1-any.pkg.tar.zst'],
    bytes: real('pacrepo/hubrepo/os/x86_64/hubdemo-1.0.0-1-any.pkg.tar.zst'),
  },
  {
    kind: apk,
    files: ['v3.20/main/x86_64/hubdemo-1.0.0-r0.apk', 'v3.20/main/x86_64/hubdemo-1.1.0-r0.apk'],
    bytes: gzip,
  },
  { kind: jetbrains, files: ['idea/ideaIC-2024.1.tar.gz', 'idea/ideaIC-2024.2.tar.gz'], bytes: gzip },
  {
    kind: generic,
    files: ['tools/hubtool-1.0.0.bin', 'tools/hubtool-1.1.0.bin'],
    bytes: Buffer.from('hub generic fixture\n'),
  },
] as const;

for (const { kind, files, bytes } of KINDS)
  t.test(`the ${kind.id} kind passes kindConformance`, (t) => {
    const root = t.testdir();
    for (const f of files) {
      fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      fs.writeFileSync(path.join(root, f), bytes);
    }
    return kindConformance(t, {
      kind,
      upstream: { root: path.resolve(root) },
      coordinates: [
        { name: 'repo' },
        { name: 'repo', version: files[0] },
        { name: 'repo', version: 'dir/with%20space/file%25.txt' },
      ],
      pkg: { name: 'repo', versions: files },
      paths: {
        download: (file) => file,
        listings: [],
        unknown: `${path.posix.dirname(files[0])}/no-such-file${path.posix.extname(files[0])}`,
      },
      skip: {
        unlisted:
          'path-addressed kinds pass the upstream index files through unchanged: no listing names a file hub could take out',
      },
    });
  });
