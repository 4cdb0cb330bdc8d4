/**
 * The SBOM answers, described as envelopes: the key members of a CycloneDX 1.6 BOM and an SPDX 2.3
 * document (the SBOM test validates whole documents against the official schemas), and hub's own
 * inventory JSON in full.
 */
import Type from 'typebox';

const open = { additionalProperties: true } as const;
const strict = { additionalProperties: false } as const;

export const CycloneDxBom = Type.Object(
  {
    bomFormat: Type.Literal('CycloneDX'),
    specVersion: Type.Literal('1.6'),
    serialNumber: Type.String({ pattern: '^urn:uuid:[0-9a-f-]{36}$' }),
    version: Type.Integer({ minimum: 1 }),
    metadata: Type.Object(
      {
        timestamp: Type.String({ format: 'date-time' }),
        component: Type.Optional(Type.Object({ name: Type.String(), purl: Type.String() }, open)),
      },
      open,
    ),
    components: Type.Array(Type.Object({ type: Type.String(), name: Type.String(), purl: Type.String() }, open)),
    dependencies: Type.Array(
      Type.Object({ ref: Type.String(), dependsOn: Type.Optional(Type.Array(Type.String())) }, open),
    ),
  },
  {
    ...open,
    description:
      'A CycloneDX 1.6 JSON BOM (format=cyclonedx, the default for one version; media type application/vnd.cyclonedx+json).',
  },
);

export const SpdxDocument = Type.Object(
  {
    spdxVersion: Type.Literal('SPDX-2.3'),
    dataLicense: Type.Literal('CC0-1.0'),
    SPDXID: Type.Literal('SPDXRef-DOCUMENT'),
    name: Type.String(),
    documentNamespace: Type.String({ description: "Below the hub's public_url, else a urn:uuid." }),
    creationInfo: Type.Object(
      { created: Type.String({ format: 'date-time' }), creators: Type.Array(Type.String(), { minItems: 1 }) },
      open,
    ),
    packages: Type.Array(
      Type.Object(
        {
          SPDXID: Type.String({ pattern: '^SPDXRef-[A-Za-z0-9.-]+$' }),
          name: Type.String(),
          downloadLocation: Type.String(),
        },
        open,
      ),
    ),
    relationships: Type.Array(
      Type.Object(
        { spdxElementId: Type.String(), relationshipType: Type.String(), relatedSpdxElement: Type.String() },
        open,
      ),
    ),
    documentDescribes: Type.Optional(Type.Array(Type.String())),
  },
  { ...open, description: 'An SPDX 2.3 JSON document (format=spdx; media type application/spdx+json).' },
);

export const InventoryJson = Type.Object(
  {
    registries: Type.Array(Type.String(), { description: 'The registries covered.' }),
    packages: Type.Array(
      Type.Object(
        {
          registry: Type.String(),
          name: Type.String(),
          version: Type.String(),
          purl: Type.String(),
          files: Type.Array(
            Type.Object(
              {
                key: Type.String({ description: 'The cache key.' }),
                sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
              },
              strict,
            ),
            { minItems: 1 },
          ),
          pulled_by: Type.Array(
            Type.Object(
              {
                user_id: Type.Union([Type.String(), Type.Null()], { description: 'null: anonymous.' }),
                downloads: Type.Integer({ minimum: 1 }),
                last: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
              },
              strict,
            ),
            { description: 'Allowed downloads in the audit log, per user.' },
          ),
        },
        strict,
      ),
      { description: 'One entry per held version.' },
    ),
  },
  { ...strict, description: "hub's own inventory JSON (format=json, the inventory's default)." },
);
