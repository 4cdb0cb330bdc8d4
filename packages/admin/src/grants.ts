import { ALL_PERMISSIONS, errors, type AccessControl, type Permission, type Subject } from '@hub/runtime';

/** The permissions decide() grants a subject outside any registry (what it holds hub-wide). */
export async function heldPermissions(access: AccessControl, subject: Subject): Promise<Set<Permission>> {
  const held = new Set<Permission>();
  for (const permission of ALL_PERMISSIONS) if ((await access.decide({ subject, permission })).decision === 'allow') held.add(permission);
  return held;
}

/**
 * No escalation through the admin API: a caller may hand out (as roles, tokens or allow policies) only
 * permissions it holds itself. An operator cannot mint an admin token.
 */
export async function assertMayGrant(access: AccessControl, caller: Subject, wanted: Iterable<Permission>, what: string): Promise<void> {
  const held = await heldPermissions(access, caller);
  const missing = [...new Set(wanted)].filter((p) => !held.has(p));
  if (missing.length) throw errors.forbidden(`${what} would grant ${missing.join(', ')}, which you do not hold`);
}
