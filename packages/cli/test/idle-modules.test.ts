/**
 * Issue 32 (idle RSS): a started hub with every default plugin and kind does not load the libraries that only
 * some requests need; they are loaded on first use. A child process records every module the ESM loader
 * loads (a loader hook) and lists the CommonJS ones at the end, then a request makes one of them load. It also
 * counts locale comparisons and date formats, which page in megabytes of ICU data from the node binary.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const CLI = fileURLToPath(new URL('../src/plugins.js', import.meta.url));
const RUNTIME = fileURLToPath(new URL('../../../runtime/dist/src/index.js', import.meta.url));

/**
 * Loaded on first use only: XML, zip, tar and multipart readers, the YAML parser, the JWT library, and the edit
 * distance behind "did you mean" in config errors.
 */
const ON_FIRST_USE = ['saxes', 'yauzl', 'busboy', 'tar-stream', 'yaml', 'jose', 'fastest-levenshtein'];

const HOOKS = `import fs from 'node:fs';
export async function load(url, context, next) {
  fs.appendFileSync(process.env.LOADED_LOG, url + '\\n');
  return next(url, context);
}
`;

const CHILD = `import { register, createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
register(pathToFileURL(process.env.HOOKS));
// Collation and date formats page in ICU data (MBs of the node binary): counted from here on.
const icu = [];
const compare = String.prototype.localeCompare;
String.prototype.localeCompare = function (...a) { icu.push('localeCompare'); return compare.apply(this, a); };
for (const name of ['Collator', 'DateTimeFormat']) {
  const C = Intl[name];
  Intl[name] = new Proxy(C, {
    construct: (c, a, n) => (icu.push(name), Reflect.construct(c, a, n)),
    apply: (c, self, a) => (icu.push(name), Reflect.apply(c, self, a)),
  });
}
const { defaultPlugins } = await import(pathToFileURL(process.env.CLI));
const { createHub } = await import(pathToFileURL(process.env.RUNTIME));
const dir = process.env.DIR;
const configText = \`[server]
listen = "127.0.0.1:0"
[database]
client = "sqlite"
filename = "\${dir}/hub.db"
[storage]
kind = "fs"
path = "\${dir}/blobs"
[[registries]]
name = "npm"
type = "npm"
upstream = "http://127.0.0.1:9/"
\`;
const token = 'hub_idle_modules_test_token_0123456789abcdef';
const hub = await createHub({ plugins: await defaultPlugins(), configText, env: { HUB_ADMIN_TOKEN: token }, print: () => {} });
const url = await hub.listen();
const ready = (await fetch(url + '/readyz')).status;
const cjs = () => Object.keys(createRequire(import.meta.url).cache);
const idle = cjs();
const icuAtIdle = [...icu];
// A lockfile upload: the lockfile plugin reads pnpm's YAML with the first one.
const lock = await fetch(url + '/api/v1/admin/lockfile/check', {
  method: 'POST',
  headers: { authorization: 'Bearer ' + token, 'content-type': 'application/json' },
  body: JSON.stringify({ file_name: 'pnpm-lock.yaml', lockfile: "lockfileVersion: '9.0'\\npackages: {}\\n" }),
});
process.stdout.write('RESULT ' + JSON.stringify({ ready, idle, icuAtIdle, lockStatus: lock.status, afterLockfile: cjs() }) + '\\n');
await hub.close();
`;

const packageOf = (file: string): string | undefined =>
  /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(decodeURIComponent(file))?.[1];

t.test('a started hub with every default plugin has not loaded what only some requests need', async (t) => {
  const dir = t.testdir({ 'hooks.mjs': HOOKS, 'child.mjs': CHILD, state: {} });
  const log = path.join(dir, 'loaded.log');
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      [path.join(dir, 'child.mjs')],
      {
        env: {
          PATH: process.env.PATH,
          HOOKS: path.join(dir, 'hooks.mjs'),
          LOADED_LOG: log,
          CLI,
          RUNTIME,
          DIR: path.join(dir, 'state'),
        },
        timeout: 120_000,
      },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout)),
    ),
  );
  // The hub's own log lines go to stdout too.
  const line = out.split('\n').find((l) => l.startsWith('RESULT '));
  const r = JSON.parse(line?.slice('RESULT '.length) ?? 'null') as {
    ready: number;
    idle: string[];
    icuAtIdle: string[];
    lockStatus: number;
    afterLockfile: string[];
  };
  t.equal(r.ready, 200, 'the hub started and is ready');
  const { readFileSync } = await import('node:fs');
  const esm = readFileSync(log, 'utf8').trim().split('\n');
  const idlePackages = new Set([...esm, ...r.idle].map(packageOf));
  t.ok(idlePackages.has('koa') && idlePackages.has('typebox'), 'the record sees what the hub loads');
  for (const p of ON_FIRST_USE) t.notOk(idlePackages.has(p), `${p} is not loaded by an idle hub`);
  t.same(r.icuAtIdle, [], 'starting compared no strings by locale and formatted no dates (no ICU data paged in)');
  t.equal(r.lockStatus, 200, 'a pnpm lockfile is read');
  t.ok(r.afterLockfile.map(packageOf).includes('yaml'), 'and the YAML parser is loaded for it');
});
