import Type, { type Static } from 'typebox';
import type { ConfigSection } from '@hub/runtime';

const pattern = (what: string, example: string) =>
  Type.String({
    minLength: 1,
    maxLength: 512,
    examples: [example],
    description: `${what}, \`*\` matching any characters, \`?\` one.`,
  });

export const ProvenanceRuleSchema = Type.Object(
  {
    registry: Type.String({
      minLength: 1,
      maxLength: 64,
      examples: ['npm'],
      description: 'The registry this rule applies to (a name, `*` matching any characters).',
    }),
    packages: Type.Array(pattern('A package name', '@acme/*'), {
      default: ['*'],
      maxItems: 256,
      description: 'The packages it applies to.',
    }),
    require: Type.Boolean({
      default: true,
      description:
        'Refuse versions without valid provenance (403 `package_blocked`, "provenance required: <why>"). The first request for a version waits for its check; later ones read the stored result.',
    }),
    source: Type.Array(pattern('A source repository, scheme left out', 'forge.example/acme/*'), {
      default: [],
      maxItems: 256,
      description:
        'Where these packages may be built: the source repository the signing certificate names must match one (config strings hub compares, never contacts). Empty: any source. Applies with `require`.',
    }),
  },
  { additionalProperties: false, description: 'A provenance policy for some packages of a registry.' },
);

export const ProvenanceSchema = Type.Object(
  {
    enabled: Type.Boolean({
      default: true,
      description:
        'Check the provenance of each version hub fetches from an upstream whose kind attests provenance (npm), after its first fetch.',
    }),
    trust_root: Type.Optional(
      Type.String({
        minLength: 1,
        examples: ['/etc/hub/trusted_root.json'],
        description:
          "A Sigstore `trusted_root.json` (Fulcio CAs, Rekor keys, CT logs) replacing the one shipped with @hub/provenance. Read once at start; hub never fetches a trust root. A path relative to hub's working directory.",
      }),
    ),
    rules: Type.Array(ProvenanceRuleSchema, {
      default: [],
      maxItems: 256,
      description: 'Policies, as `[[provenance.rules]]` tables; every rule matching a version applies.',
    }),
  },
  {
    additionalProperties: false,
    default: {},
    description: 'Provenance of package versions (@hub/provenance, decision 0062).',
  },
);

export type ProvenanceConfig = Static<typeof ProvenanceSchema>;
export type ProvenanceRule = Static<typeof ProvenanceRuleSchema>;

export const provenanceSection: ConfigSection<typeof ProvenanceSchema> = {
  section: 'provenance',
  schema: ProvenanceSchema,
  check(value, config) {
    const names = new Set(config.registries.map((r) => r.name));
    return value.rules.flatMap((r, i) =>
      !r.registry.includes('*') && !names.has(r.registry)
        ? [{ key: ['rules', i, 'registry'], message: `no registry named ${JSON.stringify(r.registry)}` }]
        : [],
    );
  },
};
