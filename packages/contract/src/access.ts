/**
 * The access vocabulary: the four permissions and the roles every hub has from the start
 * (docs/security.md, "Permissions, roles and policies"). This is its one spelling: the config and
 * admin API schemas, the runtime's decisions, the CLI and the console import it, the docs are
 * rendered from it, and the cli test `vocabulary.test.ts` fails on a hand-written copy elsewhere.
 * The file imports nothing, so the console's browser bundle can take it as it is.
 */

export const PERMISSIONS = ['source:read', 'source:write', 'system:read', 'system:write'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** What each permission allows, for help texts and docs/security.md. */
export const PERMISSION_ALLOWS: Readonly<Record<Permission, string>> = {
  'source:read': 'downloads and metadata from registries',
  'source:write': 'publishing to `local` registries',
  'system:read': 'reading the admin API (audit log, blocks, users, ...) and the access-check simulator',
  'system:write': 'changing anything through the admin API',
};

export const BUILT_IN_ROLES = ['admin', 'reader', 'publisher', 'auditor', 'operator'] as const;
export type BuiltInRole = (typeof BUILT_IN_ROLES)[number];

const GRANTS: Record<BuiltInRole, readonly Permission[]> = {
  admin: PERMISSIONS,
  reader: ['source:read'],
  publisher: ['source:read', 'source:write'],
  auditor: ['system:read'],
  operator: ['system:read', 'system:write'],
};

/**
 * The permissions of each built-in role. Other role names grant nothing by themselves (policies may
 * name them). A null prototype: role names come from users, and `constructor` is a valid one that
 * must not find Object's members here.
 */
export const ROLE_PERMISSIONS: Readonly<Record<string, readonly Permission[] | undefined>> = Object.freeze(
  Object.assign(Object.create(null) as Record<string, readonly Permission[]>, GRANTS),
);

/** Whether `role` is one of the built-in roles. */
export const isBuiltInRole = (role: string): role is BuiltInRole => Object.hasOwn(GRANTS, role);
