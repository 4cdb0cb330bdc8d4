import { ROLE_PERMISSIONS, type HubServices, type Permission, type Policy } from '@hub/runtime';
import type { WorkloadConfig } from './config.js';

/** The user an entry's exchanged tokens belong to. */
export const workloadUser = (w: Pick<WorkloadConfig, 'name'>): string => `workload:${w.name}`;

/** What an entry's tokens may do: the union of its built-in roles' permissions (undefined with a custom role). */
function rolePermissions(roles: readonly string[]): Permission[] | undefined {
  if (!roles.every((r) => r in ROLE_PERMISSIONS)) return undefined;
  return [...new Set(roles.flatMap((r) => ROLE_PERMISSIONS[r]!))];
}

/**
 * How an entry's grants reach decide(). Without a registry scope the user `workload:<name>` holds the entry's
 * roles. With one, it holds no role and a configured allow policy grants the roles' permissions only in the
 * scoped registries (decide() has no "everywhere but", so a scope is a grant, not a deny).
 */
export function workloadGrants(w: WorkloadConfig): {
  roles: string[];
  policy?: Policy;
  tokenPermissions?: Permission[];
} {
  const permissions = rolePermissions(w.roles);
  if (w.registries === undefined) return { roles: [...w.roles], tokenPermissions: permissions };
  return {
    roles: [],
    policy: {
      id: `auth.workload:${w.name}`,
      effect: 'allow',
      permissions: permissions!,
      users: [workloadUser(w)],
      registries: [...w.registries],
    },
    tokenPermissions: permissions,
  };
}

/** Creates the entry's user, or sets its roles when the configuration changed them. */
export async function ensureWorkloadUser(users: HubServices['users'], w: WorkloadConfig): Promise<void> {
  const { roles } = workloadGrants(w);
  const id = workloadUser(w);
  // Two replicas creating it at once: the loser's insert fails, and the user is there all the same.
  const created = await users.create({ id, roles }).catch(() => 'exists' as const);
  if (created !== 'exists') return;
  const user = await users.find(id);
  if (user && JSON.stringify(user.roles) !== JSON.stringify(roles)) await users.setRoles(id, roles);
}
