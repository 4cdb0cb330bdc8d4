// Fails when any package's sources import in a circle (npm run check:cycles, run by npm run lint; decision 0069).
// It reads the TypeScript sources, not dist/, so it runs before a build. Type-only imports count: a type
// cycle still ties the files together for a reader and for the compiler. Imports of another package are left
// out: npm workspaces and project references already forbid a circle between packages.
import fs from 'node:fs';
import path from 'node:path';
import madge from 'madge';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const folders = ['packages', 'examples'].flatMap((top) =>
  fs.readdirSync(path.join(root, top), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => path.join(top, d.name)),
);
const sources = [];
for (const folder of folders) {
  for (const [src, tsconfig] of [['src', 'tsconfig.json'], ['web/src', 'web/tsconfig.json']]) {
    if (fs.existsSync(path.join(root, folder, src))) sources.push({ src: path.join(folder, src), tsconfig: path.join(folder, tsconfig) });
  }
}

let circles = 0;
for (const { src, tsconfig } of sources) {
  const result = await madge(path.join(root, src), {
    fileExtensions: ['ts', 'tsx'],
    tsConfig: fs.existsSync(path.join(root, tsconfig)) ? path.join(root, tsconfig) : undefined,
    // Another package, or its build output: outside this package's sources.
    excludeRegExp: [/^\.\.\//, /(^|\/)dist\//, /node_modules/],
  });
  for (const circle of result.circular()) {
    circles++;
    console.log(`${src}: ${[...circle, circle[0]].join(' > ')}`);
  }
}
console.log(`${circles} import circle(s) in ${sources.length} source folders`);
process.exitCode = circles ? 1 : 0;
