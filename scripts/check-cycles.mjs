// Fails when any package's sources import in a circle (npm run check:cycles, run by npm run lint; decision 0069).
// It reads the TypeScript sources, not dist/, so it runs before a build. Type-only imports count: a type
// circle still ties the files together for a reader and for the compiler. Imports of another package are left
// out (they resolve to its dist/, or to nothing before a build): npm workspaces and project references already
// forbid a circle between packages.
import fs from 'node:fs';
import path from 'node:path';
import madge from 'madge';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const sources = ['packages', 'examples'].flatMap((top) =>
  fs
    .readdirSync(path.join(root, top), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => ['src', 'web/src'].map((src) => path.join(top, d.name, src)))
    .filter((src) => fs.existsSync(path.join(root, src))),
);

// Circles left on purpose, each with why: one whose files another change is rewriting. Named by their files,
// sorted; a listed circle that is gone is reported so its entry goes too.
const KNOWN = new Map();

const result = await madge(
  sources.map((src) => path.join(root, src)),
  {
    baseDir: root,
    fileExtensions: ['ts', 'tsx'],
    tsConfig: path.join(root, 'tsconfig.base.json'),
    excludeRegExp: [/(^|\/)dist\//, /node_modules/],
  },
);
let circles = 0;
const seen = new Set();
for (const circle of result.circular()) {
  const key = [...circle].sort().join(' ');
  const text = [...circle, circle[0]].join(' > ');
  seen.add(key);
  if (KNOWN.has(key)) {
    console.log(`known: ${text} (${KNOWN.get(key)})`);
    continue;
  }
  circles++;
  console.log(text);
}
for (const key of KNOWN.keys())
  if (!seen.has(key)) console.log(`gone, remove its entry in scripts/check-cycles.mjs: ${key}`);
console.log(
  `${circles} import circle(s) in ${Object.keys(result.obj()).length} files of ${sources.length} source folders`,
);
process.exitCode = circles ? 1 : 0;
