import crypto from 'node:crypto';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import cargo from '@hub/kind-cargo';
import go from '@hub/kind-go';
import nuget from '@hub/kind-nuget';
import pypi from '@hub/kind-pypi';
import rubygems from '@hub/kind-rubygems';
import { goFixtureHandler, missingClient, startFixtureUpstream, type FixtureHandler } from '@hub/testkit';
import { lockfileHub } from '../hub.js';

/**
 * A lockfile of each non-npm format, written by hand from the kinds' own test fixtures (digests computed from
 * the fixture files; go's h1 from the real go client), checked against fake upstreams: fetchable and unknown
 * upstream, warmed through the route (`warm: true`), then held with matching digests, and a rewritten digest
 * answered integrity_mismatch.
 */
const fixtures = (rel: string) => fileURLToPath(new URL(`../../../../${rel}`, import.meta.url));
const CARGO = fixtures('kind-cargo/test/fixtures/upstream/');
const GO = fixtures('kind-go/test/fixtures/upstream/');
const GEMS = fixtures('kind-rubygems/test/fixtures/upstream');
const NUGET = fixtures('kind-nuget/test/fixtures/upstream/');
const hash = (alg: string, file: string, enc: 'hex' | 'base64' = 'hex') =>
  crypto.createHash(alg).update(fs.readFileSync(file)).digest(enc);
const run = promisify(execFile);
const GO_PRESENT = (process.env.PATH ?? '').split(path.delimiter).some((d) => fs.existsSync(path.join(d, 'go')));

/** The pypi and nuget kinds' fixture servers are test modules of their packages (built by tsc -b). */
async function testModule<T>(rel: string): Promise<T> {
  return (await import(new URL(`../../../../${rel}`, import.meta.url).href)) as T;
}

interface FixtureDist {
  project: string;
  filename: string;
  body: Buffer;
}

t.test('Cargo.lock, go.sum, Gemfile.lock, requirements.txt, poetry.lock, uv.lock and packages.lock.json', async (t) => {
  const { simpleIndex } = await testModule<{ simpleIndex(d: () => readonly FixtureDist[]): FixtureHandler }>(
    'kind-pypi/dist/test/simple-fixture.js',
  );
  const { demoDists } = await testModule<{ demoDists(): FixtureDist[] }>('kind-pypi/dist/test/setup.js');
  const { nugetFixtureHandler } = await testModule<{ nugetFixtureHandler(root: string): FixtureHandler }>(
    'kind-nuget/dist/test/nuget-fixture.js',
  );
  const dists = demoDists();
  const ups = {
    cargo: await startFixtureUpstream({ root: CARGO }),
    go: await startFixtureUpstream({ handler: goFixtureHandler(GO) }),
    gems: await startFixtureUpstream({ root: GEMS }),
    py: await startFixtureUpstream({ handler: simpleIndex(() => dists) }),
    nuget: await startFixtureUpstream({ handler: nugetFixtureHandler(NUGET) }),
  };
  t.teardown(() => Promise.all(Object.values(ups).map((u) => u.close())));
  const hub = await lockfileHub(t, {
    plugins: [cargo, go, rubygems, pypi, nuget],
    registries: [
      { name: 'crates', type: 'cargo', mode: 'proxy', upstream: `${ups.cargo.url}/index` },
      { name: 'go', type: 'go', mode: 'proxy', upstream: ups.go.url },
      { name: 'gems', type: 'rubygems', mode: 'proxy', upstream: ups.gems.url },
      { name: 'py', type: 'pypi', mode: 'proxy', upstream: `${ups.py.url}/simple` },
      { name: 'nuget', type: 'nuget', mode: 'proxy', upstream: `${ups.nuget.url}/v3/index.json` },
    ],
  });

  const crate = (n: string, v: string) => hash('sha256', path.join(CARGO, `crates/${n}/${n}-${v}.crate`));
  const gem = (f: string) => hash('sha256', path.join(GEMS, 'gems', f));
  const wheelOf = (project: string, version: string) =>
    dists.find((d) => d.project === project && d.filename.includes(`-${version}-`))!;
  const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');
  const demo = wheelOf('hub-demo', '1.0.0');
  const demo11 = wheelOf('hub-demo', '1.1.0');
  const dep = wheelOf('hubdep', '1.0.0');
  const nupkg = (id: string, v: string) =>
    hash('sha512', path.join(NUGET, `v3-flatcontainer/${id}/${v}/${id}.${v}.nupkg`), 'base64');

  // go's own h1 of the fixture module, from the real go client through a throwaway GOPROXY on the fixture.
  let goSum = `example.com/Hub/demo v1.0.0 h1:${Buffer.alloc(32, 1).toString('base64')}\n`;
  let goSumReal = false;
  if (GO_PRESENT) {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-go-'));
    t.teardown(() => fs.rmSync(home, { recursive: true, force: true }));
    try {
      const env = {
        PATH: process.env.PATH,
        HOME: home,
        GOPATH: path.join(home, 'gopath'),
        GOMODCACHE: path.join(home, 'mod'),
        GOFLAGS: '-modcacherw',
        GOPROXY: ups.go.url,
        GONOSUMDB: '*',
        GONOSUMCHECK: '1',
        GOSUMDB: 'off',
        GOTOOLCHAIN: 'local',
      };
      const r = await run('go', ['mod', 'download', '-json', 'example.com/Hub/demo@v1.0.0'], { env, cwd: home });
      const info = JSON.parse(r.stdout) as { Sum: string; GoModSum: string };
      goSum = `example.com/Hub/demo v1.0.0 ${info.Sum}\nexample.com/Hub/demo v1.0.0/go.mod ${info.GoModSum}\n`;
      goSumReal = true;
    } catch (e) {
      t.comment(`go mod download failed, the h1 comparison is skipped: ${(e as Error).message}`);
    }
  }
  goSum += `example.com/Hub/demo v9.9.9/go.mod h1:${Buffer.alloc(32, 2).toString('base64')}\n`;

  const lockfiles: Array<{
    file: string;
    registry: string;
    text: string;
    present: string;
    absent: string;
    rewrite(text: string): string;
  }> = [
    {
      file: 'Cargo.lock',
      registry: 'crates',
      text: `# This file is automatically @generated by Cargo.\nversion = 3\n\n[[package]]\nname = "app"\nversion = "0.1.0"\n\n[[package]]\nname = "cfg-if"\nversion = "1.0.0"\nsource = "registry+https://upstream.example/index"\nchecksum = "${crate('cfg-if', '1.0.0')}"\n\n[[package]]\nname = "percent-encoding"\nversion = "9.9.9"\nsource = "sparse+https://upstream.example/index/"\nchecksum = "${'0'.repeat(64)}"\n`,
      present: 'cfg-if',
      absent: 'percent-encoding',
      rewrite: (s) => s.replace(crate('cfg-if', '1.0.0'), 'f'.repeat(64)),
    },
    {
      file: 'go.sum',
      registry: 'go',
      text: goSum,
      present: 'example.com/Hub/demo@v1.0.0',
      absent: 'example.com/Hub/demo@v9.9.9',
      rewrite: (s) => s.replace(/v1\.0\.0 h1:\S+/, `v1.0.0 h1:${Buffer.alloc(32, 3).toString('base64')}`),
    },
    {
      file: 'Gemfile.lock',
      registry: 'gems',
      text: `GEM\n  remote: https://upstream.example/\n  specs:\n    hubdep (1.0.0)\n    nosuchgem (9.9.9)\n\nPLATFORMS\n  ruby\n\nDEPENDENCIES\n  hubdep\n\nCHECKSUMS\n  hubdep (1.0.0) sha256=${gem('hubdep-1.0.0.gem')}\n\nBUNDLED WITH\n   2.5.0\n`,
      present: 'hubdep',
      absent: 'nosuchgem',
      rewrite: (s) => s.replace(gem('hubdep-1.0.0.gem'), 'e'.repeat(64)),
    },
    {
      file: 'requirements.txt',
      registry: 'py',
      text: `# pip-compile --generate-hashes\nhubdep==1.0.0 \\\n    --hash=sha256:${sha(dep.body)}\nnosuchproject==9.9.9 \\\n    --hash=sha256:${'1'.repeat(64)}\n`,
      present: 'hubdep',
      absent: 'nosuchproject',
      rewrite: (s) => s.replace(sha(dep.body), 'd'.repeat(64)),
    },
    {
      file: 'poetry.lock',
      registry: 'py',
      text: `# This file is automatically @generated by Poetry 1.8.2 and should not be changed by hand.\n\n[[package]]\nname = "hub-demo"\nversion = "1.0.0"\ndescription = ""\noptional = false\npython-versions = ">=3.7"\nfiles = [\n    {file = "${demo.filename}", hash = "sha256:${sha(demo.body)}"},\n]\n\n[[package]]\nname = "nosuchproject"\nversion = "9.9.9"\ndescription = ""\noptional = false\npython-versions = "*"\nfiles = []\n\n[metadata]\nlock-version = "2.0"\n`,
      present: 'hub-demo',
      absent: 'nosuchproject',
      rewrite: (s) => s.replace(sha(demo.body), 'c'.repeat(64)),
    },
    {
      file: 'uv.lock',
      registry: 'py',
      text: `version = 1\nrequires-python = ">=3.8"\n\n[[package]]\nname = "hub-demo"\nversion = "1.1.0"\nsource = { registry = "https://upstream.example/simple" }\nwheels = [\n    { url = "https://upstream.example/files/${demo11.filename}", hash = "sha256:${sha(demo11.body)}", size = ${demo11.body.length} },\n]\n\n[[package]]\nname = "nosuchproject"\nversion = "9.9.9"\nsource = { registry = "https://upstream.example/simple" }\nsdist = { url = "https://upstream.example/files/nosuchproject-9.9.9.tar.gz", hash = "sha256:${'2'.repeat(64)}", size = 10 }\n`,
      present: 'hub-demo',
      absent: 'nosuchproject',
      rewrite: (s) => s.replace(sha(demo11.body), 'b'.repeat(64)),
    },
    {
      file: 'packages.lock.json',
      registry: 'nuget',
      text: JSON.stringify({
        version: 1,
        dependencies: {
          'net8.0': {
            HubDep: {
              type: 'Direct',
              requested: '[1.0.0, )',
              resolved: '1.0.0',
              contentHash: nupkg('hubdep', '1.0.0'),
            },
            NoSuchPackage: {
              type: 'Transitive',
              resolved: '9.9.9',
              contentHash: Buffer.alloc(64, 4).toString('base64'),
            },
            App: { type: 'Project' },
          },
        },
      }),
      present: 'HubDep',
      absent: 'NoSuchPackage',
      rewrite: (s) => s.replace(nupkg('hubdep', '1.0.0'), Buffer.alloc(64, 5).toString('base64')),
    },
  ];

  for (const l of lockfiles) {
    await t.test(l.file, async (t) => {
      const key = (e: { name: string; version: string }) => (l.file === 'go.sum' ? `${e.name}@${e.version}` : e.name);
      const get = (body: any) => Object.fromEntries(body.entries.map((e: any) => [key(e), e])) as Record<string, any>;
      const first = await hub.check({ lockfile: l.text, file_name: l.file });
      t.equal(first.status, 200, JSON.stringify(first.body));
      t.equal(first.body.registry, l.registry, 'the only registry of the type');
      t.equal(get(first.body)[l.present]?.status, 'fetchable', JSON.stringify(first.body.entries));
      t.equal(get(first.body)[l.absent]?.status, 'unknown_upstream');
      t.equal(first.body.installable, false);

      const warmed = await hub.check({ lockfile: l.text, file_name: l.file, warm: true });
      t.equal(warmed.status, 200);
      t.match(warmed.body.warm, { fetched: 1, refused: 1, failed: 0 }, JSON.stringify(warmed.body.warm));
      t.ok(warmed.body.warm.bytes > 0);
      if (l.file === 'go.sum' && !goSumReal) {
        t.equal(get(warmed.body)[l.present].status, 'integrity_mismatch', "a made-up h1 differs from the held zip's");
        t.comment(`go's own h1 not compared: ${missingClient('go', 'apt-get install golang-go')}`);
        return;
      }
      t.equal(
        get(warmed.body)[l.present].status,
        'held',
        `held after warming, the lockfile's digest matching the bytes: ${JSON.stringify(get(warmed.body)[l.present])}`,
      );

      const rewritten = await hub.check({ lockfile: l.rewrite(l.text), file_name: l.file });
      const e = get(rewritten.body)[l.present];
      t.equal(e.status, 'integrity_mismatch', JSON.stringify(e));
      t.equal(e.installable, false);
    });
  }
});
