import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from 'tap';
import { loadConfig, type DetectContext } from '@hub/runtime';
import { checkPlugins } from '@hub/runtime/internal';
import { detectUpstreams, machineContext, renderInitToml, type FoundUpstream } from '../src/init.js';
import { defaultPlugins } from '../src/plugins.js';

const kinds = [...checkPlugins(await defaultPlugins()).kinds.values()];

type RunCommand = DetectContext['run'];

/** The machine as the kinds see it: commands answered by `run`, files below `home`. */
const machine = (run: RunCommand, home: string): DetectContext => ({
  run,
  readHomeFile: machineContext(home).readHomeFile,
});
/** Detection sorted by name, so tests do not depend on the catalogue's order. */
const detect = async (run: RunCommand, home: string) =>
  (await detectUpstreams(kinds, machine(run, home))).sort((a, b) => a.name.localeCompare(b.name));

/** A fake `run` answering from a table keyed by the command line; anything else is "not installed". */
function fakeRun(answers: Record<string, string | Error>): RunCommand & { calls: string[] } {
  const calls: string[] = [];
  const run = async (cmd: string, args: string[]): Promise<string | null> => {
    const line = [cmd, ...args].join(' ');
    calls.push(line);
    const answer = answers[line];
    if (answer instanceof Error) throw answer;
    return answer ?? null;
  };
  return Object.assign(run, { calls });
}

function writeFiles(home: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(home, rel)), { recursive: true });
    writeFileSync(join(home, rel), text);
  }
}

const SETTINGS_XML = `<?xml version="1.0" encoding="UTF-8"?>
<settings>
  <mirrors>
    <!-- <mirror><id>old</id><url>http://127.0.0.1:1/old</url></mirror> -->
    <mirror>
      <id>internal</id>
      <mirrorOf>*</mirrorOf>
      <url> http://127.0.0.1:8081/repository/maven-public/ </url>
    </mirror>
    <mirror><id>second</id><url>http://127.0.0.1:8082/</url></mirror>
  </mirrors>
</settings>
`;

const NUGET_CONFIG = `<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <clear />
    <add key="local-folder" value="/srv/packages" />
    <add value="http://127.0.0.1:5555/v3/index.json?a=1&amp;b=2" key="not-index" />
    <add key="internal" protocolVersion="3" value="http://127.0.0.1:5000/v3/index.json" />
  </packageSources>
</configuration>
`;

const TERRAFORMRC = `# CLI configuration
plugin_cache_dir = "$HOME/.terraform.d/plugin-cache"
host "registry.internal.test" {
  services = {
    # "providers.v1" = "http://127.0.0.1:1/commented/v1/providers/"
    "providers.v1" = "https://127.0.0.1:18443/tfr/v1/providers/"
  }
}
provider_installation {
  /* network_mirror { url = "http://127.0.0.1:1/commented/" } */
  network_mirror {
    url = "https://127.0.0.1:18443/tfm/"
    include = ["*/*"]
  }
  direct {
    exclude = ["*/*"]
  }
}
`;

const CARGO_CONFIG = `[source.crates-io]
replace-with = "internal"

[source.internal]
registry = "sparse+http://127.0.0.1:3000/index/"

[registries.other]
index = "sparse+http://127.0.0.1:3001/other/"
`;

t.test('detectUpstreams reads every package manager it can find', async (tt) => {
  const home = tt.testdir();
  writeFiles(home, {
    '.cargo/config.toml': CARGO_CONFIG,
    '.m2/settings.xml': SETTINGS_XML,
    '.nuget/NuGet/NuGet.Config': NUGET_CONFIG,
    '.terraformrc': TERRAFORMRC,
  });
  const run = fakeRun({
    'npm config get registry': 'http://127.0.0.1:4873/\n',
    'go env GOPROXY': 'direct,http://user:secret@127.0.0.1:3002/go/|off\n',
    'gem sources --list': '*** CURRENT SOURCES ***\n\nhttp://127.0.0.1:9292/\nhttp://127.0.0.1:9293/\n',
    'pip config list':
      "global.index-url='http://127.0.0.1:3141/root/pypi/simple'\n:env:.index-url='http://ci:secret@127.0.0.1:3142/simple/'\n",
  });
  const found = await detect(run, home);
  tt.same(found, [
    { name: 'cargo', type: 'cargo', upstream: 'http://127.0.0.1:3000/index', source: '~/.cargo/config.toml' },
    { name: 'go', type: 'go', upstream: 'http://127.0.0.1:3002/go', source: 'go env GOPROXY' },
    {
      name: 'maven',
      type: 'maven',
      upstream: 'http://127.0.0.1:8081/repository/maven-public',
      source: '~/.m2/settings.xml',
    },
    { name: 'npm', type: 'npm', upstream: 'http://127.0.0.1:4873', source: 'npm config get registry' },
    {
      name: 'nuget',
      type: 'nuget',
      upstream: 'http://127.0.0.1:5000/v3/index.json',
      source: '~/.nuget/NuGet/NuGet.Config',
    },
    { name: 'pypi', type: 'pypi', upstream: 'http://127.0.0.1:3142/simple', source: 'PIP_INDEX_URL (pip config list)' },
    { name: 'rubygems', type: 'rubygems', upstream: 'http://127.0.0.1:9292', source: 'gem sources --list' },
    { name: 'terraform', type: 'terraform', upstream: 'https://127.0.0.1:18443/tfr', source: '~/.terraformrc' },
  ]);
  tt.notMatch(JSON.stringify(found), /secret/, 'credentials in a URL are never carried into hub.toml');
});

t.test('detectUpstreams leaves out what is missing and never fails', async (tt) => {
  tt.test('nothing installed, nothing configured', async (t2) => {
    const run = fakeRun({});
    t2.same(await detect(run, t2.testdir()), []);
    t2.same(run.calls.sort(), [
      'gem sources --list',
      'go env GOPROXY',
      'npm config get registry',
      'pip config list',
      'python3 -m pip config list',
    ]);
  });
  tt.test('commands that throw or print nothing useful', async (t2) => {
    const run = fakeRun({
      'npm config get registry': new Error('spawn npm ENOENT'),
      'go env GOPROXY': 'direct\n',
      'gem sources --list': '*** CURRENT SOURCES ***\n\n',
    });
    t2.same(await detect(run, t2.testdir()), []);
  });
  tt.test('GOPROXY=off and non-http entries are not proxies', async (t2) => {
    t2.same(await detect(fakeRun({ 'go env GOPROXY': 'off' }), t2.testdir()), []);
    t2.same(await detect(fakeRun({ 'go env GOPROXY': 'file:///srv/go,direct' }), t2.testdir()), []);
  });
  tt.test('broken or partial files', async (t2) => {
    const home = t2.testdir();
    writeFiles(home, {
      '.cargo/config.toml': 'this is [not toml',
      '.m2/settings.xml': '<settings><mirrors></mirrors></settings>',
      '.nuget/NuGet/NuGet.Config':
        '<configuration><packageSources><add key="x" value="/local" /></packageSources></configuration>',
      '.terraformrc': 'provider_installation { direct {} }',
    });
    t2.same(await detect(fakeRun({}), home), []);
  });
  tt.test('cargo: a git index is not a sparse index', async (t2) => {
    const home = t2.testdir();
    writeFiles(home, {
      '.cargo/config.toml':
        '[source.crates-io]\nreplace-with = "m"\n[source.m]\nregistry = "http://127.0.0.1:1/git-index"\n',
    });
    t2.same(await detect(fakeRun({}), home), []);
  });
});

t.test('an XML settings file with a DOCTYPE is not read (no entity is ever expanded)', async (tt) => {
  const home = tt.testdir();
  const doctype = '<?xml version="1.0"?>\n<!DOCTYPE s [<!ENTITY u "http://127.0.0.1:1/evil">]>\n';
  writeFiles(home, {
    '.m2/settings.xml': `${doctype}<settings><mirrors><mirror><url>&u;</url></mirror></mirrors></settings>`,
    '.nuget/NuGet/NuGet.Config': `${doctype}<configuration><packageSources><add key="k" value="http://127.0.0.1:1/v3/index.json" /></packageSources></configuration>`,
  });
  tt.same(await detect(fakeRun({}), home), []);
});

t.test('a third-party kind with a detectUpstream hook is asked too', async (tt) => {
  const acme = {
    ...kinds[0]!,
    id: 'acme',
    detectUpstream: async () => ({ upstream: 'http://127.0.0.1:7000/acme/', source: '~/.acmerc' }),
  };
  tt.same(await detectUpstreams([acme], machine(fakeRun({}), tt.testdir())), [
    { name: 'acme', type: 'acme', upstream: 'http://127.0.0.1:7000/acme', source: '~/.acmerc' },
  ]);
});

t.test('cargo: [registries.*] index, and the legacy ~/.cargo/config file name', async (tt) => {
  const home = tt.testdir();
  writeFiles(home, { '.cargo/config': '[registries.mine]\nindex = "sparse+http://127.0.0.1:3001/other/"\n' });
  tt.same(await detect(fakeRun({}), home), [
    { name: 'cargo', type: 'cargo', upstream: 'http://127.0.0.1:3001/other', source: '~/.cargo/config' },
  ]);
});

t.test('the default runner runs real commands and still never fails', async (tt) => {
  const found = await detectUpstreams(kinds, machineContext(tt.testdir()));
  tt.ok(Array.isArray(found));
  for (const f of found) tt.match(f.upstream, /^https?:\/\//, `${f.name} from ${f.source} is an http(s) URL`);
});

const FOUND: FoundUpstream[] = [
  { name: 'npm', type: 'npm', upstream: 'http://127.0.0.1:4873', source: 'npm config get registry' },
  { name: 'go', type: 'go', upstream: 'http://127.0.0.1:3002/go', source: 'go env GOPROXY' },
  {
    name: 'nuget',
    type: 'nuget',
    upstream: 'http://127.0.0.1:5000/v3/index.json?a="b"',
    source: '~/.nuget/NuGet/NuGet.Config',
  },
];

t.test('renderInitToml round-trips through loadConfig', async (tt) => {
  const text = renderInitToml(FOUND);
  const cfg = loadConfig({ text, env: {} });
  tt.same(
    cfg.registries.map((r) => ({ name: r.name, type: r.type, mode: r.mode, upstream: r.upstream })),
    FOUND.map((f) => ({ name: f.name, type: f.type, mode: 'proxy', upstream: f.upstream })),
  );
  tt.equal(cfg.server.listen, '127.0.0.1:8080');
  tt.same(cfg.auth.anonymous, [], 'a generated file asks for tokens by default');
  tt.match(text, '# from npm config get registry', 'each registry says where it came from');
  tt.match(text, '[server]');
  tt.match(text, '[database]');
  tt.match(text, '[storage]');
  tt.match(text, '[auth]');

  tt.equal(loadConfig({ text: renderInitToml(FOUND, { listen: '0.0.0.0:9000' }) }).server.listen, '0.0.0.0:9000');
});

t.test('renderInitToml with nothing found still loads, with a commented example', async (tt) => {
  const text = renderInitToml([]);
  tt.same(loadConfig({ text }).registries, []);
  tt.match(text, '# [[registries]]');
});
