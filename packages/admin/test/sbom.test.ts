/**
 * SBOM export: one held version as CycloneDX 1.6 and SPDX 2.3 JSON, and the inventory of what is held and
 * who pulled it. Both are validated against their official JSON schemas (ajv 8): CycloneDX 1.6 from the
 * CycloneDX library, SPDX 2.3 copied into test/fixtures/spdx (no npm package ships it). The official SPDX
 * schema requires few fields, so SPDX is also checked against the fields the SPDX 2.3 spec requires.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import t, { type Test } from 'tap';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { purl } from '../src/sbom/purl.js';
import { setup, type AdminSetup } from './setup.js';

const require = createRequire(import.meta.url);
const SCHEMAS = join(dirname(require.resolve('@cyclonedx/cyclonedx-library/package.json')), 'res', 'schema');
const schema = (f: string) => JSON.parse(readFileSync(join(SCHEMAS, f), 'utf8')) as Record<string, unknown>;
/** The 1.6 schema $refs its neighbours by file name, relative to its own $id. */
const neighbour = (f: string) => ({
  ...schema(f),
  $id: new URL(f, String(schema('bom-1.6.SNAPSHOT.schema.json').$id)).href,
});
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function cycloneDxValidator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(neighbour('spdx.SNAPSHOT.schema.json'));
  ajv.addSchema(neighbour('jsf-0.82.SNAPSHOT.schema.json'));
  return ajv.compile(schema('bom-1.6.SNAPSHOT.schema.json'));
}

const SPDX_23_SCHEMA = JSON.parse(
  readFileSync(new URL('../../test/fixtures/spdx/spdx-2.3-schema.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

/** An SPDX document against the official 2.3 schema and the fields the SPDX specification requires: the errors, or null. */
function spdxErrors(doc: unknown): string | null {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  for (const schema of [SPDX_23_SCHEMA, SPDX_23_REQUIRED]) {
    const validate = ajv.compile(schema);
    if (!validate(doc)) return JSON.stringify(validate.errors);
  }
  return null;
}

/** The fields SPDX 2.3 (clauses 6, 7 and 11) requires of a JSON document, its packages and relationships. */
const SPDX_23_REQUIRED = {
  type: 'object',
  required: ['spdxVersion', 'dataLicense', 'SPDXID', 'name', 'documentNamespace', 'creationInfo'],
  properties: {
    spdxVersion: { const: 'SPDX-2.3' },
    dataLicense: { const: 'CC0-1.0' },
    SPDXID: { const: 'SPDXRef-DOCUMENT' },
    name: { type: 'string', minLength: 1 },
    documentNamespace: { type: 'string', format: 'uri', not: { pattern: '#' } },
    creationInfo: {
      type: 'object',
      required: ['created', 'creators'],
      properties: {
        created: { type: 'string', pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$' },
        creators: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^(Person|Organization|Tool): .+' } },
      },
    },
    packages: {
      type: 'array',
      items: {
        type: 'object',
        required: ['SPDXID', 'name', 'downloadLocation'],
        properties: {
          SPDXID: { type: 'string', pattern: '^SPDXRef-[A-Za-z0-9.-]+$' },
          checksums: {
            type: 'array',
            items: {
              type: 'object',
              required: ['algorithm', 'checksumValue'],
              properties: {
                algorithm: { enum: ['SHA1', 'SHA224', 'SHA256', 'SHA384', 'SHA512', 'MD5'] },
                checksumValue: { type: 'string', pattern: '^[0-9a-f]+$' },
              },
            },
          },
          externalRefs: {
            type: 'array',
            items: {
              type: 'object',
              required: ['referenceCategory', 'referenceType', 'referenceLocator'],
              properties: {
                referenceCategory: {
                  enum: ['SECURITY', 'PACKAGE-MANAGER', 'PACKAGE_MANAGER', 'PERSISTENT-ID', 'PERSISTENT_ID', 'OTHER'],
                },
              },
            },
          },
        },
      },
    },
    relationships: {
      type: 'array',
      items: { type: 'object', required: ['spdxElementId', 'relationshipType', 'relatedSpdxElement'] },
    },
  },
};

async function held(t: Test): Promise<{ s: AdminSetup; sha: string }> {
  const s = await setup(t, { config: { auth: { anonymous: ['source:read'] } } });
  const res = await fetch(`${s.base}/hubdemo/-/hubdemo-1.1.0.tgz`);
  const bytes = Buffer.from(await res.arrayBuffer());
  t.equal(res.status, 200, 'hubdemo 1.1.0 is held');
  await s.hub.artifacts.idle();
  return { s, sha: createHash('sha256').update(bytes).digest('hex') };
}

t.test(
  'CycloneDX 1.6 of a held npm version: valid against the official schema, purls and the verified sha256',
  async (t) => {
    const { s, sha } = await held(t);
    const res = await s.api('GET', '/api/v1/admin/sbom/npm/hubdemo/1.1.0?format=cyclonedx');
    t.equal(res.status, 200);
    t.match(res.headers['content-type'], /application\/vnd\.cyclonedx\+json/);
    const validate = cycloneDxValidator();
    t.ok(validate(res.json), `valid CycloneDX 1.6: ${JSON.stringify(validate.errors)}`);
    t.equal(res.json.specVersion, '1.6');
    const c = res.json.metadata.component;
    t.equal(c.purl, 'pkg:npm/hubdemo@1.1.0');
    t.same(c.hashes, [{ alg: 'SHA-256', content: sha }], 'the sha256 of the bytes hub holds');
    const deps = res.json.components.map(
      (d: { name: string; purl: string; scope: string; properties: Array<{ name: string; value: string }> }) => [
        d.name,
        d.purl,
        d.scope,
        d.properties.find((p) => p.name === 'hub:version_range')?.value,
      ],
    );
    t.same(
      deps.sort(),
      [
        ['hubdep', 'pkg:npm/hubdep', 'required', '^1.0.0'],
        ['tap', 'pkg:npm/tap', 'excluded', '*'],
      ],
      'the declared dependencies with their ranges; dev ones excluded',
    );
    t.same(res.json.dependencies[0].ref, c['bom-ref'], 'the dependency graph starts at the version');
    t.equal(res.json.dependencies[0].dependsOn.length, 2);

    const broken = structuredClone(res.json);
    delete broken.bomFormat;
    t.notOk(validate(broken), 'the validator does reject a document without bomFormat');
  },
);

t.test(
  'SPDX 2.3 of a held npm version: valid against the official schema, purls, checksum and relationships',
  async (t) => {
    const { s, sha } = await held(t);
    const res = await s.api('GET', '/api/v1/admin/sbom/npm/hubdemo/1.1.0?format=spdx');
    t.equal(res.status, 200);
    t.match(res.headers['content-type'], /application\/spdx\+json/);
    t.equal(spdxErrors(res.json), null, 'valid against the official SPDX 2.3 schema and the required fields');
    const root = res.json.packages.find((p: { SPDXID: string }) => p.SPDXID === 'SPDXRef-Package');
    t.same(root.checksums, [{ algorithm: 'SHA256', checksumValue: sha }]);
    t.same(root.externalRefs, [
      { referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: 'pkg:npm/hubdemo@1.1.0' },
    ]);
    const rel = (r: { spdxElementId: string; relationshipType: string; relatedSpdxElement: string }) =>
      r.relationshipType;
    t.same(res.json.relationships.map(rel).sort(), ['DEPENDS_ON', 'DESCRIBES', 'DEV_DEPENDENCY_OF']);
    const ids = new Set(res.json.packages.map((p: { SPDXID: string }) => p.SPDXID));
    t.ok(
      res.json.relationships.every(
        (r: { spdxElementId: string; relatedSpdxElement: string }) =>
          (ids.has(r.spdxElementId) || r.spdxElementId === 'SPDXRef-DOCUMENT') && ids.has(r.relatedSpdxElement),
      ),
      'every relationship names packages of the document',
    );
    t.match(res.json.documentNamespace, /^urn:uuid:[0-9a-f-]{36}$/, 'without public_url: a urn:uuid namespace');
    const other = await s.api('GET', '/api/v1/admin/sbom/npm/hubdemo/1.1.0?format=spdx');
    t.not(other.json.documentNamespace, res.json.documentNamespace, 'each document has its own namespace');
  },
);

t.test(
  'errors: a version hub does not hold, an unknown format or registry, no token, a reader without system:read',
  async (t) => {
    const { s } = await held(t);
    const notHeld = await s.api('GET', '/api/v1/admin/sbom/npm/hubdemo/1.0.0');
    t.equal(notHeld.status, 404);
    t.equal(notHeld.json.error.code, 'not_found');
    t.equal((await s.api('GET', '/api/v1/admin/sbom/npm/hubdemo/1.1.0?format=xml')).status, 400);
    t.equal((await s.api('GET', '/api/v1/admin/sbom/nope/hubdemo/1.1.0')).status, 404);
    t.equal((await s.api('GET', '/api/v1/admin/sbom?format=yaml')).status, 400);
    t.equal((await s.api('GET', '/api/v1/admin/sbom', { token: null })).status, 401);
    const reader = await s.token('reader', { roles: ['reader'] });
    t.equal((await s.api('GET', '/api/v1/admin/sbom/npm/hubdemo/1.1.0', { token: reader })).status, 403);
  },
);

t.test('inventory: what is held and who pulled it, as JSON, CycloneDX (valid) and SPDX', async (t) => {
  const { s, sha } = await held(t);
  const ci = await s.token('ci', { roles: ['reader'] });
  for (let i = 0; i < 2; i++)
    t.equal(
      await fetch(`${s.base}/hubdemo/-/hubdemo-1.1.0.tgz`, { headers: { authorization: `Bearer ${ci}` } }).then((r) =>
        r.arrayBuffer().then(() => r.status),
      ),
      200,
    );
  const json = await s.api('GET', '/api/v1/admin/sbom?registry=npm&format=json');
  t.equal(json.status, 200);
  t.same(json.json.registries, ['npm']);
  t.equal(json.json.packages.length, 1, 'one held version');
  const e = json.json.packages[0];
  t.match(e, {
    registry: 'npm',
    name: 'hubdemo',
    version: '1.1.0',
    purl: 'pkg:npm/hubdemo@1.1.0',
    files: [{ sha256: sha }],
  });
  t.same(
    e.pulled_by.map((p: { user_id: string | null; downloads: number }) => [p.user_id, p.downloads]).sort(),
    [
      ['ci', 2],
      [null, 1],
    ].sort(),
    'ci pulled it twice, an anonymous client once',
  );

  const cdx = await s.api('GET', '/api/v1/admin/sbom?format=cyclonedx');
  const validate = cycloneDxValidator();
  t.ok(validate(cdx.json), `the whole-hub inventory is valid CycloneDX 1.6: ${JSON.stringify(validate.errors)}`);
  t.ok(
    cdx.json.components[0].properties.some(
      (p: { name: string; value: string }) => p.name === 'hub:pulled_by' && p.value.startsWith('ci downloads=2'),
    ),
  );
  const doc = await s.api('GET', '/api/v1/admin/sbom?format=spdx');
  t.equal(spdxErrors(doc.json), null, 'the inventory as valid SPDX 2.3');
  t.match(doc.json.packages[0].comment, /pulled by .*ci \(2\)/);
});

t.test(
  "purls: each ecosystem's type and namespace; hostile characters in names and versions are percent-encoded",
  async (t) => {
    t.equal(purl('npm', '@scope/name', '1.0.0'), 'pkg:npm/%40scope/name@1.0.0');
    t.equal(purl('maven', 'org.example:lib', '2.0'), 'pkg:maven/org.example/lib@2.0');
    t.equal(purl('go', 'example.com/a/b', 'v1.2.3'), 'pkg:golang/example.com/a/b@v1.2.3');
    t.equal(purl('cargo', 'serde', '1.0.0+build'), 'pkg:cargo/serde@1.0.0%2Bbuild');
    t.equal(purl('rubygems', 'nokogiri', '1.16.0-x86_64-linux'), 'pkg:gem/nokogiri@1.16.0-x86_64-linux');
    t.equal(
      purl('nuget', 'Newtonsoft.Json'),
      'pkg:nuget/Newtonsoft.Json',
      'a dependency known by its range has no version',
    );
    t.equal(
      purl('npm', 'a?b#c@d', '1 ?#/'),
      'pkg:npm/a%3Fb%23c%40d@1%20%3F%23%2F',
      'no ? # @ / from a name or version ends up as purl syntax',
    );
    t.equal(
      purl('debian', 'repo', 'pool/x.deb'),
      'pkg:generic/repo@pool%2Fx.deb',
      'kinds without a purl type are generic',
    );
  },
);
