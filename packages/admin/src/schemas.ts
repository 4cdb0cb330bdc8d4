/** Request bodies of the admin API (docs/openapi.json), as TypeBox schemas checked before any handler. */
import Type from 'typebox';
import { permissionSchema } from '@hub/runtime';

const strict = { additionalProperties: false } as const;

/** User ids are path segments and CSV cells: letters, digits and `._@+-`, starting with a letter or digit. */
export const USER_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$';
export const ROLE_PATTERN = '^[a-z][a-z0-9_-]{0,63}$';
export const TOKEN_ID_PATTERN = '^[0-9a-f]{1,32}$';

const permission = permissionSchema();
const userId = Type.String({ pattern: USER_ID_PATTERN, description: 'A user id.' });
const roles = Type.Array(Type.String({ pattern: ROLE_PATTERN }), { maxItems: 32, uniqueItems: true });
const text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const patterns = Type.Array(text(512), { minItems: 1, maxItems: 100 });

export const CreateUserBody = Type.Object({ id: userId, roles: Type.Optional(roles) }, strict);

export const CreateTokenBody = Type.Object(
  {
    user_id: userId,
    permissions: Type.Optional(Type.Array(permission, { maxItems: 4, uniqueItems: true })),
    expires_in_secs: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 * 366 * 86400 })),
  },
  strict,
);

export const AccessCheckBody = Type.Object(
  {
    user_id: Type.Optional(userId),
    token_id: Type.Optional(Type.String({ pattern: TOKEN_ID_PATTERN })),
    roles: Type.Optional(roles),
    permission,
    registry: Type.Optional(text(64)),
    package: Type.Optional(text(512)),
  },
  strict,
);

export const BlockBody = Type.Object(
  {
    registry: text(64),
    package_name: text(512),
    version: Type.Optional(text(1024)),
    path: Type.Optional(text(1024)),
    reason: Type.Optional(text(1000)),
  },
  strict,
);

export const RevalidateBody = Type.Object(
  { registry: text(64), package: text(512), version: Type.Optional(text(1024)) },
  strict,
);

export const UnlistBody = Type.Object({ registry: text(64), package_name: text(512), version: text(255) }, strict);

export const PolicyBody = Type.Object(
  {
    name: Type.Optional(text(128)),
    effect: Type.Enum(['allow', 'deny']),
    permissions: Type.Array(permission, { minItems: 1, maxItems: 4, uniqueItems: true }),
    users: Type.Optional(patterns),
    roles: Type.Optional(patterns),
    tokens: Type.Optional(patterns),
    registries: Type.Optional(patterns),
    packages: Type.Optional(patterns),
  },
  strict,
);

export const LocalVersionBody = Type.Object(
  { registry: text(64), package_name: text(512), version: text(255) },
  strict,
);
/** A name claimed for a hybrid registry (decision 0043). */
export const ClaimBody = Type.Object({ package: text(512) }, strict);

export const LocalOnlyBody = Type.Object(
  { registry: text(64), package_name: text(512), local_only: Type.Boolean() },
  strict,
);

/** A block as the API answers it (`path` only in path-addressed registries). */
export const BlockAnswer = Type.Object(
  {
    id: Type.Integer(),
    registry: Type.String(),
    package_name: Type.String(),
    version: Type.Union([Type.String(), Type.Null()], { description: 'null: every version.' }),
    path: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    reason: Type.Union([Type.String(), Type.Null()]),
    blocked_by: Type.String({ description: 'A user id, or system:<source> for automatic blocks.' }),
    created_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  strict,
);
export const BlockList = Type.Object({ blocks: Type.Array(BlockAnswer) }, strict);

const time = Type.String({ format: 'date-time', description: 'RFC 3339 UTC.' });
const maybeTime = Type.Union([time, Type.Null()]);

export const UserAnswer = Type.Object(
  { id: Type.String(), roles: Type.Array(Type.String()), blocked: Type.Boolean(), created_at: time },
  strict,
);
export const UserList = Type.Object({ users: Type.Array(UserAnswer) }, strict);
const tokenFields = {
  id: Type.String(),
  permissions: Type.Union([Type.Array(permission), Type.Null()], {
    description: "null: all of the user's permissions.",
  }),
  expires_at: maybeTime,
  revoked_at: maybeTime,
  created_at: time,
};
export const UserDetail = Type.Object(
  {
    id: Type.String(),
    roles: Type.Array(Type.String()),
    blocked: Type.Boolean(),
    created_at: time,
    tokens: Type.Array(Type.Object(tokenFields, strict)),
  },
  strict,
);
export const TokenAnswer = Type.Object({ ...tokenFields, user_id: Type.String() }, strict);
export const CreatedToken = Type.Object(
  {
    ...tokenFields,
    user_id: Type.String(),
    token: Type.String({ description: 'Shown only here: hub stores its SHA-256.' }),
  },
  strict,
);

export const UnlistedAnswer = Type.Object(
  {
    registry: Type.String(),
    package_name: Type.String(),
    version: Type.String(),
    unlisted_by: Type.String(),
    created_at: time,
  },
  strict,
);
export const UnlistedList = Type.Object({ unlisted: Type.Array(UnlistedAnswer) }, strict);

/** A cleanup run now: every registry with rules, or one. */
export const CleanupRunBody = Type.Object(
  {
    registry: Type.Optional(text(64)),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10_000,
        description: 'Versions listed at most (default 1000); the totals count all.',
      }),
    ),
  },
  strict,
);
/** Garbage collection of a local or hybrid registry (decision 0055). */
export const GarbageBody = Type.Object(
  { dry_run: Type.Optional(Type.Boolean({ description: 'List what would be removed; remove nothing.' })) },
  strict,
);
