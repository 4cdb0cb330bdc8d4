import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { createDb } from '@hub/runtime/internal';
import { main } from '../src/main.js';

/** `hub ...` in-process: the exit code and both streams. */
async function hub(argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { out: (s) => (stdout += s), err: (s) => (stderr += s), env: {} });
  return { code, stdout, stderr };
}

const PLUGIN = `export default {
  role: 'plugin', id: 'acme-notes', contract: 1, description: 'a plugin loaded by [plugins] load',
  migrations: { '001_notes': { up: (db) => db.schema.createTable('acme_notes', (t) => t.string('id')) } },
};
`;

t.test('hub migrate runs the migrations of plugins named by [plugins] load', async (t) => {
  const dir = t.testdir({ 'plugin.mjs': PLUGIN });
  const db = path.join(dir, 'hub.db');
  const config = path.join(dir, 'hub.toml');
  fs.writeFileSync(
    config,
    `[plugins]\nload = [${JSON.stringify(path.join(dir, 'plugin.mjs'))}]\n[database]\nclient = "sqlite"\nfilename = ${JSON.stringify(db)}\n`,
  );
  const r = await hub(['migrate', '-c', config]);
  t.equal(r.code, 0, r.stderr);
  t.match(r.stdout, /acme-notes\/001_notes/, 'the loaded plugin migration is listed');
  const knex = createDb({ client: 'sqlite', filename: db });
  t.teardown(() => knex.destroy());
  t.ok(await knex.schema.hasTable('acme_notes'), 'its table exists');
});

t.test('a TOML syntax error names file, line and column, for migrate as for serve', async (t) => {
  const dir = t.testdir({ 'hub.toml': '[server]\nlisten = "127.0.0.1:0"\nbroken = [\n' });
  for (const cmd of ['migrate', 'serve']) {
    const r = await hub([cmd, '-c', path.join(dir, 'hub.toml')]);
    t.equal(r.code, 1, `${cmd} exits 1`);
    t.match(r.stderr, /hub\.toml:\d+:\d+: invalid TOML/, `${cmd}: the loader's message, not the parser's`);
  }
});
