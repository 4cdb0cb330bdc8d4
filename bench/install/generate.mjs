// The install workload's project: a seeded, deterministic graph of npm packages shaped like a front-end
// project's tree (a few dozen direct dependencies; popular small packages shared by many; some wide packages
// with 15-30 dependencies; deep chains; several majors of some names, so clients nest copies; a few scoped
// names), each published version a valid tarball (gzip of a tar: package/package.json, README.md, index.js, lib/*.js)
// of a few KB to a few hundred KB of JavaScript-like text, and each name a packument with its version history.
// Written once into a cache dir keyed by seed, size and GENERATOR_VERSION; the origin serves it from there.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { makeTar } from '@hub/testkit';

/** Bump when the output changes, so a cache dir made by an older generator is not reused. */
export const GENERATOR_VERSION = 2;
const MTIME = 1577836800; // 2020-01-01, fixed so the tarballs (and their integrity) are the same every time

/** mulberry32: a small seeded PRNG. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS =
  'value options config state props result index length buffer stream parse format resolve reject callback handler module exports require context target source element node child parent entry cache token match range scope error message event listener emit once store key map set list item array object string number boolean undefined promise async await render update create remove insert compare hash encode decode path url query params headers request response body status'.split(
    ' ',
  );
const OPS = ['===', '!==', '+', '-', '&&', '||', '<', '>='];

/** JavaScript-shaped text of about `size` bytes (compresses about 4:1, like real library code). */
function jsText(rand, size) {
  const w = () => WORDS[Math.floor(rand() * WORDS.length)];
  const id = () => w() + (rand() < 0.5 ? w()[0].toUpperCase() + w().slice(1) : '');
  const lines = ["'use strict';"];
  let n = lines[0].length;
  while (n < size) {
    const r = rand();
    let line;
    if (r < 0.15) line = `function ${id()}(${id()}, ${id()}) {`;
    else if (r < 0.3) line = `  const ${id()} = ${id()}.${w()}(${id()}, ${Math.floor(rand() * 1000)});`;
    else if (r < 0.45) line = `  if (${id()} ${OPS[Math.floor(rand() * OPS.length)]} ${id()}) return ${id()};`;
    else if (r < 0.55) line = '}';
    else if (r < 0.65) line = `// ${w()} ${w()} ${w()} ${w()} ${w()} ${w()}`;
    else if (r < 0.8)
      line = `  ${id()}.${w()} = ${id()}[${JSON.stringify(w())}] || ${JSON.stringify(w() + '-' + w())};`;
    else line = `  for (let i = 0; i < ${id()}.length; i++) ${id()}.push(${id()}[i]);`;
    lines.push(line);
    n += line.length + 1;
  }
  return lines.join('\n') + '\n';
}

/** A size in [lo, hi], log-uniform: most packages are small, a few are large. */
const logUniform = (rand, lo, hi) => Math.round(Math.exp(Math.log(lo) + rand() * (Math.log(hi) - Math.log(lo))));

/**
 * The graph: `count` installable instances (a name at one major), each depending on earlier instances, so the
 * graph has no cycles. Returns { names: Map name -> { majors: Map major -> instance } , instances, root }.
 */
function plan(seed, count) {
  const rand = prng(seed);
  const instances = [];
  const names = [];
  for (let i = 0; instances.length < count; i++) {
    const scoped = rand() < 0.08;
    const name = scoped
      ? `@bench-${WORDS[i % 7]}/${WORDS[Math.floor(rand() * WORDS.length)]}-${i}`
      : `${WORDS[Math.floor(rand() * WORDS.length)]}-${WORDS[Math.floor(rand() * WORDS.length)]}-${i}`;
    // Most names are used at one major; some at two or three (the tree then holds several versions of them).
    const r = rand();
    const majors = r < 0.8 ? 1 : r < 0.95 ? 2 : 3;
    const first = 1 + Math.floor(rand() * 4);
    names.push(name);
    for (let m = 0; m < majors && instances.length < count; m++)
      instances.push({ name, major: first + m, deps: new Map(), dependents: 0 });
  }
  // Dependencies: popular packages early in the list are picked often (shared); a pick among the last few
  // instances makes chains (depth); a few packages are wide.
  for (let k = 1; k < instances.length; k++) {
    const inst = instances[k];
    const r = rand();
    const want =
      r < 0.35
        ? 0
        : r < 0.65
          ? 1 + Math.floor(rand() * 2)
          : r < 0.9
            ? 3 + Math.floor(rand() * 4)
            : r < 0.98
              ? 7 + Math.floor(rand() * 9)
              : 16 + Math.floor(rand() * 15);
    for (let tries = 0; inst.deps.size < Math.min(want, k) && tries < want * 4; tries++) {
      const q = rand();
      const j =
        q < 0.5
          ? Math.floor(Math.pow(rand(), 3) * k)
          : q < 0.8
            ? Math.max(0, k - 1 - Math.floor(rand() * 8))
            : Math.floor(rand() * k);
      const dep = instances[j];
      if (dep.name === inst.name || inst.deps.has(dep.name)) continue;
      inst.deps.set(dep.name, dep);
      dep.dependents++;
    }
  }
  // The project depends on everything nothing else depends on, so every instance is in the tree; it can name
  // only one major of a name, so another major left without dependents gets one among later instances (edges
  // go from later to earlier instances: no cycles).
  const root = [];
  const inRoot = new Set();
  for (let k = instances.length - 1; k >= 0; k--) {
    const inst = instances[k];
    if (inst.dependents > 0) continue;
    if (!inRoot.has(inst.name)) {
      inRoot.add(inst.name);
      root.unshift(inst);
      continue;
    }
    const later = instances.slice(k + 1).find((o) => o.name !== inst.name && !o.deps.has(inst.name));
    later.deps.set(inst.name, inst);
    inst.dependents++;
  }
  return { rand, names, instances, root };
}

/** A tarball and its dist fields. */
function pack(manifest, files) {
  const entries = [
    ['package/package.json', JSON.stringify(manifest, null, 2)],
    ...Object.entries(files).map(([f, c]) => [`package/${f}`, c]),
  ];
  const tgz = zlib.gzipSync(makeTar(entries, { mtime: MTIME }), { level: 9 });
  const unpackedSize = entries.reduce((s, [, c]) => s + Buffer.byteLength(c), 0);
  return {
    tgz,
    dist: {
      integrity: `sha512-${crypto.createHash('sha512').update(tgz).digest('base64')}`,
      shasum: crypto.createHash('sha1').update(tgz).digest('hex'),
      fileCount: entries.length,
      unpackedSize,
    },
  };
}

const fileName = (name, version) => `${name.split('/').pop()}-${version}.tgz`;

/**
 * Writes the project into `dir` (once; a finished dir is reused): tarballs/<name>/-/<file>.tgz,
 * packuments/<encoded name>.json (full document; the tarball URLs hold the placeholder {{ORIGIN}}),
 * project/package.json, and summary.json (counts and sizes). Returns the summary.
 */
export function generateProject({ dir, seed, count }) {
  const summaryFile = path.join(dir, 'summary.json');
  if (fs.existsSync(summaryFile)) return JSON.parse(fs.readFileSync(summaryFile, 'utf8'));
  fs.rmSync(dir, { recursive: true, force: true });
  const tmp = `${dir}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  const { rand, instances, root } = plan(seed, count);
  const byName = new Map();
  for (const inst of instances) {
    if (!byName.has(inst.name)) byName.set(inst.name, []);
    byName.get(inst.name).push(inst);
  }
  let tarballs = 0;
  let tarballBytes = 0;
  let installedBytes = 0;
  let packumentBytes = 0;
  const day = 86400e3;
  for (const [name, insts] of byName) {
    const versions = {};
    const time = { created: new Date(Date.UTC(2015, 0, 1)).toISOString() };
    let at = Date.UTC(2015, 0, 1) + Math.floor(rand() * 900) * day;
    const description = `${name}: ${WORDS.slice(0, 3 + Math.floor(rand() * 8)).join(' ')}`;
    // Majors below the used ones are history too: a packument holds every version ever published.
    const lastMajor = insts.at(-1).major;
    for (let major = 1; major <= lastMajor; major++) {
      const inst = insts.find((i) => i.major === major);
      const minors = 1 + Math.floor(rand() * (inst ? 6 : 3));
      for (let minor = 0; minor < minors; minor++) {
        const patches = 1 + Math.floor(rand() * 4);
        for (let patch = 0; patch < patches; patch++) {
          const version = `${major}.${minor}.${patch}`;
          const newest = inst && minor === minors - 1 && patch === patches - 1;
          const dependencies = Object.fromEntries(
            [...(inst?.deps.values() ?? [])].map((d) => [d.name, `^${d.major}.0.0`]),
          );
          const manifest = { name, version, description, main: 'index.js', license: 'MIT', dependencies };
          // The version a client installs carries real code; older ones are small (never downloaded here).
          const size = newest ? logUniform(rand, 3e3, 400e3) : 600;
          const files = { 'README.md': `# ${name}\n\n${description}\n` };
          if (newest) {
            const libs = 1 + Math.floor(rand() * 6);
            files['index.js'] = jsText(rand, Math.ceil(size / (libs + 1)));
            for (let l = 0; l < libs; l++) files[`lib/${WORDS[l]}.js`] = jsText(rand, Math.ceil(size / (libs + 1)));
          } else files['index.js'] = jsText(rand, size);
          const { tgz, dist } = pack(manifest, files);
          const file = fileName(name, version);
          const tdir = path.join(tmp, 'tarballs', name, '-');
          fs.mkdirSync(tdir, { recursive: true });
          fs.writeFileSync(path.join(tdir, file), tgz);
          tarballs++;
          tarballBytes += tgz.length;
          if (newest) installedBytes += tgz.length;
          versions[version] = {
            ...manifest,
            repository: { type: 'git', url: `git+https://git.example/${name}.git` },
            author: { name: 'Bench Author', email: 'author@example.com' },
            maintainers: [{ name: 'bench', email: 'bench@example.com' }],
            _id: `${name}@${version}`,
            _nodeVersion: '18.19.0',
            _npmVersion: '10.2.3',
            dist: { ...dist, tarball: `{{ORIGIN}}/${name}/-/${file}` },
          };
          at += Math.floor(1 + rand() * 60) * day;
          time[version] = new Date(at).toISOString();
        }
      }
    }
    const latest = Object.keys(versions).at(-1);
    time.modified = time[latest];
    const doc = {
      _id: name,
      name,
      description,
      'dist-tags': { latest },
      versions,
      time,
      maintainers: [{ name: 'bench', email: 'bench@example.com' }],
      readme: `# ${name}\n\n${jsText(rand, 2000)}`,
      readmeFilename: 'README.md',
      license: 'MIT',
    };
    const text = JSON.stringify(doc);
    packumentBytes += text.length;
    fs.mkdirSync(path.join(tmp, 'packuments'), { recursive: true });
    fs.writeFileSync(path.join(tmp, 'packuments', `${encodeURIComponent(name)}.json`), text);
  }
  const dependencies = Object.fromEntries(
    root.map((i) => [i.name, `^${i.major}.0.0`]).sort(([a], [b]) => a.localeCompare(b)),
  );
  fs.mkdirSync(path.join(tmp, 'project'), { recursive: true });
  fs.writeFileSync(
    path.join(tmp, 'project', 'package.json'),
    `${JSON.stringify({ name: 'bench-app', version: '1.0.0', private: true, dependencies }, null, 2)}\n`,
  );
  const summary = {
    generator: GENERATOR_VERSION,
    seed,
    instances: instances.length,
    names: byName.size,
    namesAtSeveralMajors: [...byName.values()].filter((l) => l.length > 1).length,
    directDependencies: root.length,
    maxDependencies: Math.max(...instances.map((i) => i.deps.size)),
    depth: depthOf(root),
    publishedVersions: tarballs,
    publishedTarballBytes: tarballBytes,
    installedTarballBytes: installedBytes,
    packumentBytes,
    // What a correct install holds: one name@version per instance (the newest of its major).
    expected: instances
      .map(
        (i) =>
          `${i.name}@${newestOf(JSON.parse(fs.readFileSync(path.join(tmp, 'packuments', `${encodeURIComponent(i.name)}.json`), 'utf8')), i.major)}`,
      )
      .sort(),
  };
  fs.writeFileSync(path.join(tmp, 'summary.json'), JSON.stringify(summary));
  fs.renameSync(tmp, dir);
  return summary;
}

function newestOf(doc, major) {
  return Object.keys(doc.versions)
    .filter((v) => v.startsWith(`${major}.`))
    .at(-1);
}

/** The longest dependency chain from the project. */
function depthOf(root) {
  const memo = new Map();
  const depth = (i) => {
    if (!memo.has(i)) memo.set(i, 1 + Math.max(0, ...[...i.deps.values()].map(depth)));
    return memo.get(i);
  };
  return Math.max(...root.map(depth));
}
