import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import npm from '@hub/kind-npm';
import { StartupError } from '@hub/runtime';
import { startTestHub } from '@hub/testkit';
import storageS3 from '../src/index.js';

const run = promisify(execFile);

t.test('loading the plugin does not load the AWS SDK: only a hub on kind = "s3" does', async (t) => {
  // A resolve hook that refuses every @aws-sdk import, in a fresh process.
  const hook =
    'export async function resolve(s, c, next) { if (s.startsWith("@aws-sdk/")) throw new Error("loaded " + s); return next(s, c); }';
  const register = `import { register } from "node:module"; register("data:text/javascript,${encodeURIComponent(hook)}");`;
  const plugin = new URL('../src/index.js', import.meta.url).href;
  const store = new URL('../src/s3-blob-store.js', import.meta.url).href;
  const { stdout } = await run(process.execPath, [
    '--import',
    `data:text/javascript,${encodeURIComponent(register)}`,
    '--input-type=module',
    '-e',
    `const p = (await import(${JSON.stringify(plugin)})).default; console.log(p.blobStore.kind);`,
  ]);
  t.equal(stdout.trim(), 's3', 'the plugin loads without the SDK');
  await t.rejects(
    run(process.execPath, [
      '--import',
      `data:text/javascript,${encodeURIComponent(register)}`,
      '--input-type=module',
      '-e',
      `await import(${JSON.stringify(store)});`,
    ]),
    /loaded @aws-sdk\/client-s3/,
    'the hook does catch the store module, which does load it',
  );
});

t.test('kind = "s3" without the plugin loaded stops startup naming the key and the loaded stores', async (t) => {
  const dir = t.testdir();
  const storage = { kind: 's3', bucket: 'hub', endpoint: 'http://127.0.0.1:9', path: path.join(dir, 'spool') };
  const e = await startTestHub({ dir, plugins: [npm], registries: [], config: { storage } }).catch(
    (err: unknown) => err,
  );
  t.ok(e instanceof StartupError);
  t.match(e, { code: 'storage', message: 'storage.kind: no loaded blob store "s3" (loaded: fs)' });
});

t.test('two plugins claiming one store kind stop startup', async (t) => {
  const dir = t.testdir();
  const twin = { ...storageS3, id: 'storage-s3-twin' };
  const e = await startTestHub({ dir, plugins: [npm, storageS3, twin], registries: [] }).catch((err: unknown) => err);
  t.match(e, { code: 'plugin_duplicate', message: /plugin "storage-s3-twin" provides the blob store "s3"/ });
});

t.test('with the plugin loaded and kind = "fs", the hub runs on the built-in store', async (t) => {
  const hub = await startTestHub({ dir: t.testdir(), plugins: [npm, storageS3], registries: [] });
  t.teardown(() => hub.close());
  t.notOk(hub.hub.blobs.close, 'the fs store');
});
