import type { Permission } from '@hub/contract';

export const ALL_PERMISSIONS: readonly Permission[] = ['source:read', 'source:write', 'system:read', 'system:write'];

/** The roles docs/coordinates.md defines from the start. */
export const ROLE_PERMISSIONS: Readonly<Record<string, readonly Permission[]>> = {
  admin: ALL_PERMISSIONS,
  reader: ['source:read'],
  publisher: ['source:read', 'source:write'],
  auditor: ['system:read'],
  operator: ['system:read', 'system:write'],
};
