import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import t from 'tap';
import { makeTar } from '@hub/testkit';
import cargo from '../src/index.js';
import { parseCargoToml } from '../src/sbom.js';
import { CRATE, fixture } from './setup.js';

const LIMITS = { maxBytes: 10 * 1024 * 1024, maxEntries: 1000 };
const extract = (b: Buffer, limits = LIMITS) => cargo.sbom!.extract(Readable.from([b]), limits);

/** A one-file tar.gz: `<dir>/Cargo.toml`. */
const crateWith = (toml: string, dir = 'demo-1.0.0'): Buffer => zlib.gzipSync(makeTar({ [`${dir}/Cargo.toml`]: toml }));

t.test('applies to .crate artifacts only', async (t) => {
  t.ok(cargo.sbom!.appliesTo('crates/form_urlencoded/form_urlencoded-1.1.0.crate'));
  t.notOk(cargo.sbom!.appliesTo('index:form_urlencoded'));
});

t.test('the fixture crates: a runtime dependency, and an optional renamed one', async (t) => {
  t.same(await extract(fixture(CRATE.form)), [{ name: 'percent-encoding', range: '2.2.0', scope: 'runtime' }]);
  t.same(await extract(fixture(CRATE.pct)), [], 'no dependencies');
  t.same(
    await extract(fixture(CRATE.cfgIf)),
    [{ name: 'rustc-std-workspace-core', range: '1.0.0', scope: 'optional' }],
    'the package it names, not the key',
  );
});

t.test('dependency tables, scopes and spellings', async (t) => {
  const toml = `
[package]
name = "demo"
version = "1.0.0"

[dependencies]
serde = { version = "1.0", optional = true }
Log = "0.4"
local = { path = "../local" }

[dependencies.renamed]
version = "^2"
package = "real-name"

[dev-dependencies]
proptest = "1"

[build-dependencies]
cc = { version = "1.0.79", optional = true }

[build_dependencies]
autocfg = "1"

[target.'cfg(unix)'.dependencies]
libc = "0.2"

[target.'cfg(windows)'.dev-dependencies]
winapi = "0.3"
`;
  const deps = await extract(crateWith(toml));
  t.same(deps, [
    { name: 'serde', range: '1.0', scope: 'optional' },
    { name: 'log', range: '0.4', scope: 'runtime' },
    { name: 'local', range: '*', scope: 'runtime' },
    { name: 'real-name', range: '^2', scope: 'runtime' },
    { name: 'proptest', range: '1', scope: 'dev' },
    { name: 'cc', range: '1.0.79', scope: 'optional' },
    { name: 'autocfg', range: '1', scope: 'build' },
    { name: 'libc', range: '0.2', scope: 'runtime' },
    { name: 'winapi', range: '0.3', scope: 'dev' },
  ]);
});

t.test('only the top-level Cargo.toml counts; caps hold; bad TOML is an error', async (t) => {
  t.same(
    await extract(crateWith('[dependencies]\nx = "1"\n', 'demo-1.0.0/sub')),
    [],
    'a nested Cargo.toml is not the manifest',
  );
  await t.rejects(
    extract(fixture(CRATE.form), { maxBytes: 1024, maxEntries: 1000 }),
    { code: 'ARCHIVE_LIMIT' },
    'the size cap',
  );
  await t.rejects(
    extract(fixture(CRATE.form), { maxBytes: LIMITS.maxBytes, maxEntries: 2 }),
    { code: 'ARCHIVE_LIMIT' },
    'the entry cap',
  );
  t.throws(() => parseCargoToml('[dependencies\nx = '), 'invalid TOML throws');
  await t.rejects(extract(Buffer.from('<html>not a crate</html>')), 'not a tar.gz');
});
