import Type from 'typebox';

/** The terraform kind's own `[[registries]]` keys. */
export interface TerraformConfig {
  mirror_hostnames?: string[];
  probe_platform?: string;
  service_discovery?: boolean;
}

const HOST_PATTERN = '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?$';

export const configSchema = Type.Object(
  {
    mirror_hostnames: Type.Optional(
      Type.Array(Type.String({ pattern: HOST_PATTERN, maxLength: 260 }), {
        description:
          'Provider source hostnames (lower-case, with :port if any) this registry answers for under /proxy/<name>/mirror/<hostname>/...; default: the host of `upstream`',
      }),
    ),
    probe_platform: Type.Optional(
      Type.String({
        pattern: '^[a-z0-9]{1,32}_[a-z0-9]{1,32}$',
        description: 'The <os>_<arch> whose download endpoint the per-version probe asks for; default linux_amd64',
      }),
    ),
    service_discovery: Type.Optional(
      Type.Boolean({
        description:
          'With the terraform discovery plugin loaded: /.well-known/terraform.json names this registry (default: the first terraform registry; at most one may set it)',
      }),
    ),
  },
  { additionalProperties: false },
);
