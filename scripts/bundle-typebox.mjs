// postinstall: TypeBox 1.x ships as about 680 ES modules, and loading them was a third of a hub process's
// start-up CPU (380 of 1,000 ms to import the runtime, in every `hub` command, every test file and every
// replica start). This bundles the installed TypeBox into a few files (rolldown, with code splitting, so every
// entry point shares one copy of its state) and points the package's `exports` at them; `types` still name the
// original declarations. The same code runs; it only loads in about 40 ms. Without rolldown (an install that
// omits dev dependencies) TypeBox is left as it is. Decision 0076.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dir = path.join(root, 'node_modules', 'typebox');
const manifestFile = path.join(dir, 'package.json');
const original = path.join(dir, 'package.original.json');
const out = path.join(dir, 'bundle');

if (!fs.existsSync(manifestFile)) process.exit(0);
const manifest = JSON.parse(fs.readFileSync(fs.existsSync(original) ? original : manifestFile, 'utf8'));
const stamp = `${manifest.version}`;
if (fs.existsSync(path.join(out, 'STAMP')) && fs.readFileSync(path.join(out, 'STAMP'), 'utf8') === stamp)
  process.exit(0);

let build;
try {
  ({ build } = await import('rolldown'));
} catch {
  console.log('bundle-typebox: rolldown is not installed; TypeBox is loaded unbundled');
  process.exit(0);
}

/** The entry a subpath export names for `import` (".": index, "./value": value, ...). */
const entries = Object.entries(manifest.exports).flatMap(([subpath, target]) => {
  const file = typeof target === 'string' ? target : (target.import ?? target.default);
  if (typeof file !== 'string' || !file.endsWith('.mjs')) return [];
  return [{ subpath, file, name: subpath === '.' ? 'index' : subpath.slice(2).replaceAll('/', '-') }];
});

const temp = `${out}.tmp-${process.pid}`;
fs.rmSync(temp, { recursive: true, force: true });
await build({
  input: Object.fromEntries(entries.map((e) => [e.name, path.join(dir, e.file)])),
  output: { dir: temp, format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: 'chunk-[hash].mjs' },
  logLevel: 'warn',
});
fs.writeFileSync(path.join(temp, 'STAMP'), stamp);

const exportsBundled = Object.fromEntries(
  Object.entries(manifest.exports).map(([subpath, target]) => {
    const e = entries.find((x) => x.subpath === subpath);
    if (!e) return [subpath, target];
    const bundled = `./bundle/${e.name}.mjs`;
    return [subpath, { types: e.file.replace(/\.mjs$/, '.d.mts'), import: bundled, default: bundled }];
  }),
);
if (!fs.existsSync(original)) fs.copyFileSync(manifestFile, original);
fs.rmSync(out, { recursive: true, force: true });
fs.renameSync(temp, out);
const next = `${manifestFile}.tmp-${process.pid}`;
fs.writeFileSync(next, `${JSON.stringify({ ...manifest, exports: exportsBundled }, null, 2)}\n`);
fs.renameSync(next, manifestFile);
console.log(`bundle-typebox: TypeBox ${manifest.version} loads from ${entries.length} bundled entry points`);
