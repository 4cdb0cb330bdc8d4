import fs from 'node:fs';
import t from 'tap';
import { configReference, openApiReference, readCatalogue, withAccessDocs } from '@hub/cli';

const root = new URL('../../', import.meta.url);
const read = (p: string) => fs.readFileSync(new URL(p, root), 'utf8');

t.test('docs/config.md is what the schemas render (run `npm run docs` after changing a schema)', async (t) => {
  t.equal(read('docs/config.md'), await configReference());
});

t.test(
  'docs/security.md lists the permissions and roles @hub/contract defines (run `npm run docs` after changing them)',
  async (t) => {
    t.equal(read('docs/security.md'), withAccessDocs(read('docs/security.md')));
  },
);

t.test(
  'docs/openapi.json is what the default distribution serves at /api/v1/openapi.json (run `npm run docs` after changing a route)',
  async (t) => {
    t.equal(read('docs/openapi.json'), await openApiReference());
  },
);

t.test(
  "the console's API types are what openapi-typescript makes of docs/openapi.json (run `npm run docs` after changing a route)",
  async (t) => {
    const script: string = new URL('scripts/render-console-api-types.mjs', root).href;
    const { consoleApiTypes } = (await import(script)) as { consoleApiTypes: () => Promise<string> };
    t.equal(read('packages/console/web/src/admin-api.generated.ts'), await consoleApiTypes());
  },
);

t.test('plugins-registry.json matches each package manifest', async (t) => {
  const catalogue = readCatalogue();
  for (const entry of catalogue.plugins) {
    // A subpath entry (`@hub/kind-terraform/discovery`) is an extra export of its package.
    const [pkg, subpath] =
      entry.package.split('/').length > 2
        ? [entry.package.split('/').slice(0, 2).join('/'), `./${entry.package.split('/').slice(2).join('/')}`]
        : [entry.package, undefined];
    if (subpath) {
      const manifest = JSON.parse(read(`${pkg.replace('@hub/', 'packages/')}/package.json`)) as {
        exports: Record<string, unknown>;
      };
      t.ok(manifest.exports[subpath], `${pkg} exports ${subpath}`);
      continue;
    }
    const dir = entry.package.replace('@hub/', 'packages/');
    const manifest = JSON.parse(read(`${dir}/package.json`)) as {
      name: string;
      hub: { contract: number; role: string; provides: string[] };
    };
    t.equal(manifest.name, entry.package, `${dir} is ${entry.package}`);
    t.same(manifest.hub.provides, entry.provides, `${entry.package} provides what the catalogue says`);
    t.equal(manifest.hub.contract, catalogue.contract, `${entry.package} targets the catalogue's contract`);
  }
});

t.test(
  'every package can be packed: exports with types, a files list without tests, a changelog (decision 0068)',
  async (t) => {
    for (const dir of fs.readdirSync(new URL('packages/', root))) {
      const manifest = JSON.parse(read(`packages/${dir}/package.json`)) as {
        name: string;
        private?: boolean;
        files?: string[];
        exports: Record<string, unknown>;
        dependencies?: Record<string, string>;
      };
      t.notOk(manifest.private, `${manifest.name} is not private`);
      t.ok(
        manifest.files?.includes('dist/src') && !manifest.files.some((f) => /test|tsbuildinfo|^src/.test(f)),
        `${manifest.name}: files ship the build, no tests`,
      );
      for (const [subpath, target] of Object.entries(manifest.exports)) {
        if (subpath === './package.json') continue;
        const { types, import: js } = target as { types?: string; import?: string };
        t.ok(js && types === js.replace(/\.js$/, '.d.ts'), `${manifest.name} exports ${subpath} with types and import`);
      }
      t.ok(fs.existsSync(new URL(`packages/${dir}/CHANGELOG.md`, root)), `${manifest.name} has a CHANGELOG.md`);
      if (manifest.name === '@hub/testkit')
        t.same(
          Object.keys(manifest.dependencies ?? {}).filter((d) => d === '@hub/cli' || d.startsWith('@hub/kind-')),
          [],
          'testing a kind needs no cli and no first-party kind',
        );
    }
  },
);

t.test('no file in packages/runtime/src is over 300 lines (small files, one concept each: issue 31)', async (t) => {
  const MAX_LINES = 300;
  const src = new URL('packages/runtime/src/', root);
  const files = fs
    .readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .sort();
  t.ok(files.length > 0, 'the runtime has sources');
  const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const over = files
    .map((f) => ({ file: `packages/runtime/src/${f}`, lines: lineCount(fs.readFileSync(new URL(f, src), 'utf8')) }))
    .filter((f) => f.lines > MAX_LINES)
    .map((f) => `${f.file}: ${f.lines} lines`);
  t.same(over, [], `split these along what they do (at most ${MAX_LINES} lines each)`);
});

t.test(
  'TypeBox loads from its bundle, and the bundle is TypeBox (scripts/bundle-typebox.mjs, decision 0076)',
  async (t) => {
    const entries = ['typebox', 'typebox/value', 'typebox/compile'];
    for (const e of entries)
      t.match(import.meta.resolve(e), /\/node_modules\/typebox\/bundle\//, `${e} resolves into the bundle`);
    const [{ Type }, { Value }, { Compile }] = await Promise.all([
      import('typebox'),
      import('typebox/value'),
      import('typebox/compile'),
    ]);
    const schema = Type.Object({ name: Type.String({ minLength: 1 }), port: Type.Integer({ default: 4873 }) });
    t.same(
      Value.Default(schema, { name: 'x' }),
      { name: 'x', port: 4873 },
      'Value.Default from one entry reads a schema built by another',
    );
    t.equal(Compile(schema).Check({ name: 'x', port: 1 }), true, 'a compiled check accepts a good value');
    t.equal(Compile(schema).Check({ name: '', port: 1.5 }), false, 'and refuses a bad one');
    t.ok([...Value.Errors(schema, { name: '' })].length >= 2, 'Value.Errors names each fault');
  },
);
