/**
 * twine, for real (issue 26: "twine is never run"): `twine upload` of a wheel and an sdist built here to a
 * local pypi registry, with a hub token as the password of `__token__`; then both forms of the page list
 * them with twine's digests checked. A second upload of a file is 409, which twine reports, and so is a
 * deleted version uploaded again in another spelling.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import t from 'tap';
import { makeTar } from '@hub/testkit';
import pypi from '../../src/index.js';
import { get } from '../setup.js';
import { start } from '../publish-setup.js';
import { sha256, wheel } from '../simple-fixture.js';

const TWINE = '/usr/bin/twine';
const skip = fs.existsSync(TWINE) ? false : `missing client: twine (${TWINE}); apt-get install -y twine`;

function twine(args: string[], home: string): Promise<{ code: number; out: string }> {
  // No keyring, no ~/.pypirc: only what the command line says.
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    PYTHON_KEYRING_BACKEND: 'keyring.backends.null.Keyring',
    TWINE_NON_INTERACTIVE: '1',
  };
  return new Promise((resolve) =>
    execFile(TWINE, args, { env }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: `${stdout}${stderr}` }),
    ),
  );
}

/** An sdist as a build backend writes one: `<name>-<version>/PKG-INFO` (twine reads the metadata from it) and the sources. */
function sdist(name: string, version: string): { filename: string; body: Buffer } {
  const root = `${name}-${version}`;
  const pkgInfo = `Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\nSummary: ${name} for tests\n`;
  const tar = makeTar({
    [`${root}/PKG-INFO`]: pkgInfo,
    [`${root}/pyproject.toml`]: '[build-system]\nrequires = []\nbuild-backend = "backend"\n',
    [`${root}/${name}/__init__.py`]: `VERSION = ${JSON.stringify(version)}\n`,
  });
  return { filename: `${root}.tar.gz`, body: zlib.gzipSync(tar) };
}

t.test(
  'twine uploads a wheel and an sdist to a local registry; pip sees both; a second upload is 409',
  { skip },
  async (t) => {
    const s = await start(t, 'local');
    const dist = path.join(s.dir, 'dist');
    fs.mkdirSync(dist);
    const w = wheel('hub_twine', '1.0.0', { requires: ['hubdep>=1.0'] });
    const sd = sdist('hub_twine', '1.0.0');
    fs.writeFileSync(path.join(dist, w.filename), w.body);
    fs.writeFileSync(path.join(dist, sd.filename), sd.body);
    const files = [path.join(dist, w.filename), path.join(dist, sd.filename)];
    const repo = `${s.base}/legacy/`;

    const up = await twine(
      ['upload', '--disable-progress-bar', '--repository-url', repo, '-u', '__token__', '-p', s.publisher, ...files],
      s.dir,
    );
    t.equal(up.code, 0, `twine upload succeeded\n${up.out}`);

    const page = (
      await get(`${s.base}/simple/hub-twine/`, s.reader, { accept: 'application/vnd.pypi.simple.v1+json' })
    ).json() as {
      versions: string[];
      files: Array<{ filename: string; hashes: { sha256: string }; 'core-metadata': unknown }>;
    };
    t.same(page.versions, ['1.0.0']);
    t.same(
      page.files.map((f) => [f.filename, f.hashes.sha256]).sort(),
      [
        [sd.filename, sha256(sd.body)],
        [w.filename, sha256(w.body)],
      ].sort(),
      'both files, with the bytes twine sent',
    );
    t.same(
      page.files.find((f) => f.filename === w.filename)!['core-metadata'],
      { sha256: sha256(w.metadata) },
      "the wheel's METADATA as its PEP 658 file",
    );
    t.ok(
      (await get(`${s.base}/files/hub-twine/${w.filename}`, s.reader)).body.equals(w.body),
      'the wheel downloads as uploaded',
    );

    const again = await twine(
      ['upload', '--disable-progress-bar', '--repository-url', repo, '-u', '__token__', '-p', s.publisher, files[0]!],
      s.dir,
    );
    t.not(again.code, 0, 'a second upload of a file fails');
    t.match(again.out, /409/, `twine reports the 409\n${again.out}`);

    const reader = await twine(
      ['upload', '--disable-progress-bar', '--repository-url', repo, '-u', '__token__', '-p', s.reader, files[1]!],
      s.dir,
    );
    t.not(reader.code, 0, 'a reader cannot publish');
    t.match(reader.out, /403/, reader.out);

    // Deleted as 1.0.0, its number is not published again in another spelling.
    const local = s.hub.services.local.forRegistry(
      'py',
      { maxPublishBytes: 1 << 20, quotaBytes: 0 },
      'admin',
      pypi.coordinate.normalizeName,
      pypi.coordinate.canonicalVersion,
    );
    t.ok(await local.deleteVersion('hub-twine', '1.0.0'));
    const respelt = sdist('hub_twine', '1.0');
    fs.writeFileSync(path.join(dist, respelt.filename), respelt.body);
    const back = await twine(
      [
        'upload',
        '--disable-progress-bar',
        '--repository-url',
        repo,
        '-u',
        '__token__',
        '-p',
        s.publisher,
        path.join(dist, respelt.filename),
      ],
      s.dir,
    );
    t.not(back.code, 0, 'a deleted 1.0.0 cannot come back as 1.0');
    t.match(back.out, /409[\s\S]*was deleted \(as 1\.0\.0\)/, back.out);
  },
);
