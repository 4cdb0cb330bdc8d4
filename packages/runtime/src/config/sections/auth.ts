/** `[auth]` and its `[[auth.policies]]`: tokens, anonymous grants and access policies. */
import Type from 'typebox';
import { BUILT_IN_ROLES, permissionSchema } from '@hub/contract';
import { strict } from '../schema-helpers.js';

const nameList = (description: string) =>
  Type.Optional(Type.Array(Type.String({ minLength: 1, description: 'One name or glob pattern.' }), { description }));

export const PolicySchema = Type.Object(
  {
    name: Type.Optional(
      Type.String({ minLength: 1, description: 'A label for the rule, shown as `rule` in access-check answers.' }),
    ),
    effect: Type.Enum(['allow', 'deny'], {
      description: 'Whether the rule grants or refuses the permissions; deny wins over allow.',
    }),
    permissions: Type.Array(permissionSchema({ description: 'A permission.' }), {
      minItems: 1,
      description: 'Permissions the rule applies to.',
    }),
    users: nameList('User ids the rule applies to.'),
    roles: nameList(`Roles the rule applies to (${BUILT_IN_ROLES.join(', ')}, or your own).`),
    tokens: nameList('Token ids the rule applies to.'),
    registries: nameList('Registry name glob patterns (`*` matches any run of characters); absent: every registry.'),
    packages: nameList(
      'Package name glob patterns in canonical form (`@acme/*`, `com.acme:*`); absent: every package.',
    ),
  },
  { ...strict, description: 'One access rule. A rule without users, roles and tokens applies to everyone.' },
);

export const AuthSchema = Type.Object(
  {
    anonymous: Type.Array(permissionSchema({ description: 'A permission.' }), {
      default: [],
      description: 'Permissions granted to requests without a token. Empty: every request needs a token.',
    }),
    admin_token_sha256: Type.Optional(
      Type.String({
        pattern: '^[0-9a-fA-F]{64}$',
        examples: ['<64 hex digits>'],
        errorMessage: 'must be 64 hex digits (the SHA-256 of the token)',
        description:
          'SHA-256 (hex) of the bootstrap admin token. The env HUB_ADMIN_TOKEN (plain) also works; with neither, the first start prints a token once.',
      }),
    ),
    policies: Type.Array(PolicySchema, {
      default: [],
      description: 'Allow/deny rules on top of roles, as `[[auth.policies]]` tables.',
    }),
  },
  { ...strict, default: {}, description: 'Who may do what. Tokens are Bearer (or the password of Basic auth).' },
);
