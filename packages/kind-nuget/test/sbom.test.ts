import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import t from 'tap';
import { withLocalDecoy } from '@hub/testkit';
import { isArchiveError } from '@hub/runtime';
import nuget from '../src/index.js';
import { MAX_DEPENDENCIES, nuspecDependencies, nuspecText } from '../src/nuspec.js';
import { FIXTURES } from './setup.js';

const LIMITS = { maxBytes: 64 * 1024 * 1024, maxEntries: 10_000 };
const nupkg = (id: string, v: string) =>
  fs.createReadStream(path.join(FIXTURES, 'v3-flatcontainer', id, v, `${id}.${v}.nupkg`));
const spec = (deps: string) =>
  `<?xml version="1.0"?><package xmlns="http://schemas.microsoft.com/packaging/2013/05/nuspec.xsd"><metadata><id>X</id><version>1.0.0</version>${deps}</metadata></package>`;

t.test('SBOM from real .nupkg files: the .nuspec inside, groups merged, canonical names', async (t) => {
  const sbom = nuget.sbom!;
  t.ok(sbom.appliesTo('hubdemo/1.1.0/hubdemo.1.1.0.nupkg'));
  t.notOk(sbom.appliesTo('hubdemo/1.1.0/hubdemo.nuspec'), 'the .nuspec file itself would count twice');
  t.same(
    await sbom.extract(nupkg('hubdemo', '1.1.0'), LIMITS),
    [{ name: 'hubdep', range: '[1.0.0, 2.0.0)', scope: 'runtime' }],
    'the same range in net6.0 and .NETStandard2.0 is one dependency',
  );
  t.same(
    await sbom.extract(nupkg('hubdemo', '1.0.0'), LIMITS),
    [{ name: 'hubdep', range: '1.0.0', scope: 'runtime' }],
    'the flat (pre-group) form',
  );
  t.same(await sbom.extract(nupkg('hubdep', '1.0.0'), LIMITS), [], 'an empty group');
  await t.rejects(
    sbom.extract(nupkg('hubdemo', '1.1.0'), { maxBytes: 100, maxEntries: 10 }),
    { code: 'ARCHIVE_LIMIT' },
    'archive caps apply',
  );
});

t.test(
  'a .nupkg whose local headers show another .nuspec: the SBOM reads the one the central directory names, as NuGet does',
  async (t) => {
    const real = fs.readFileSync(path.join(FIXTURES, 'v3-flatcontainer', 'hubdemo', '1.1.0', 'hubdemo.1.1.0.nupkg'));
    const crafted = withLocalDecoy(
      real,
      'hubdemo.nuspec',
      spec('<dependencies><dependency id="Decoy" version="6.6.6"/></dependencies>'),
    );
    t.same(await nuget.sbom!.extract(Readable.from([crafted]), LIMITS), [
      { name: 'hubdep', range: '[1.0.0, 2.0.0)', scope: 'runtime' },
    ]);
  },
);

t.test('nuspec dependencies: groups by target framework, flat form, ids and ranges', async (t) => {
  t.same(
    nuspecDependencies(
      spec(`<dependencies>
        <group targetFramework="net8.0"><dependency id="A" version="[1.0, 2.0)" exclude="Build" /><dependency id="B" /></group>
        <group><dependency id="C" version="3.0.0"/></group>
      </dependencies>`),
    ),
    [
      { id: 'A', range: '[1.0, 2.0)', targetFramework: 'net8.0' },
      { id: 'B', targetFramework: 'net8.0' },
      { id: 'C', range: '3.0.0' },
    ],
  );
  t.same(nuspecDependencies(spec(`<dependencies><dependency id='Single.Quoted' version='1.0.0'/></dependencies>`)), [
    { id: 'Single.Quoted', range: '1.0.0' },
  ]);
  t.same(
    nuspecDependencies(
      `<n:package xmlns:n="urn:x"><n:metadata><n:dependencies><n:dependency id="Prefixed" version="1"/></n:dependencies></n:metadata></n:package>`,
    ),
    [{ id: 'Prefixed', range: '1' }],
    'namespace prefixes',
  );
});

t.test('nuspec: only metadata/dependencies counts; comments, CDATA and other elements do not', async (t) => {
  const xml = spec(`<!-- <dependencies><dependency id="InComment" version="1"/></dependencies> -->
    <description><![CDATA[<dependency id="InCdata" version="1"/>]]></description>
    <frameworkAssemblies><frameworkAssembly assemblyName="System.Xml" /></frameworkAssemblies>
    <dependencies><dependency id="Real" version="1.0.0" note="a &gt; b &amp; c &#x41;"/></dependencies>
    <references><dependency id="NotADependency" version="1"/></references>`);
  t.same(nuspecDependencies(xml), [{ id: 'Real', range: '1.0.0' }]);
  t.same(
    nuspecDependencies(spec(`<dependencies><dependency id="A&amp;B" version="&#49;.0"/></dependencies>`)),
    [{ id: 'A&B', range: '1.0' }],
    'predefined entities and character references decode',
  );
  t.same(
    nuspecDependencies(spec(`<dependencies><dependency version="1.0" id="Gt" x="a>b"/></dependencies>`)),
    [{ id: 'Gt', range: '1.0' }],
    'a > inside a quoted attribute',
  );
});

t.test('nuspec: no DTD, so no entity expansion; hostile input is refused or bounded', async (t) => {
  const laughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>${spec('<dependencies><dependency id="&lol2;" version="1"/></dependencies>')}`;
  t.throws(() => nuspecDependencies(laughs), { code: 'ARCHIVE_CORRUPT' }, 'a DOCTYPE is refused');
  const xxe = `<?xml version="1.0"?><!DOCTYPE p [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${spec('<dependencies><dependency id="&xxe;"/></dependencies>')}`;
  t.throws(() => nuspecDependencies(xxe), { code: 'ARCHIVE_CORRUPT' });
  t.throws(
    () => nuspecDependencies(`<?xml version="1.0"?><!DOCTYPE package SYSTEM "http://127.0.0.1:9/x.dtd">${spec('')}`),
    { code: 'ARCHIVE_CORRUPT', message: /DOCTYPE/ },
    'an external DTD is refused, never fetched',
  );
  t.same(
    nuspecDependencies(spec('<dependencies><dependency id="&undeclared;" version="1"/></dependencies>')),
    [{ id: '&undeclared;', range: '1' }],
    'an undeclared entity stays text',
  );
  t.throws(
    () => nuspecDependencies('<package><metadata><dependencies><dependency id="x'),
    { code: 'ARCHIVE_CORRUPT' },
    'an unterminated tag',
  );
  t.throws(() => nuspecDependencies('<package><!-- never closed'), { code: 'ARCHIVE_CORRUPT' });
  const many = spec(`<dependencies>${'<dependency id="A" version="1"/>'.repeat(MAX_DEPENDENCIES + 1)}</dependencies>`);
  t.throws(() => nuspecDependencies(many), { code: 'ARCHIVE_LIMIT' }, `at most ${MAX_DEPENDENCIES} dependencies`);
  t.ok(
    isArchiveError(Object.assign(new Error('x'), { name: 'ArchiveError', code: 'ARCHIVE_LIMIT' })),
    'the codes are the runtime archive codes',
  );
});

t.test('nuspec text: UTF-8 with or without a BOM, UTF-16 with one', async (t) => {
  const xml = spec('<dependencies><dependency id="Ü.Unicode" version="1"/></dependencies>');
  for (const buf of [
    Buffer.from(xml),
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(xml)]),
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]),
    Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(xml, 'utf16le').swap16()]),
  ])
    t.same(nuspecDependencies(nuspecText(buf)), [{ id: 'Ü.Unicode', range: '1' }]);
});
