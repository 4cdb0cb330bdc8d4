import {
  ALL_PERMISSIONS,
  decide,
  errors,
  type AccessRequest,
  type Decision,
  type Permission,
  type PluginContext,
  type Policy,
  type Subject,
} from '@hub/runtime';

/** One place a permission may be held: hub-wide (no registry), a registry, or a package in one. */
export interface Scope {
  permission: Permission;
  registry?: string;
  package?: string;
}

/** What a user, token or allow policy would grant: true where it allows. */
export interface Grant {
  allows(s: Scope): boolean;
  /** Patterns the grant names that the policies in force may not (a new allow policy's), compared at too. */
  registries?: readonly string[];
  packages?: readonly string[];
}

/** Beyond this many places to compare, the check refuses rather than take long: only a break-glass caller passes. */
const MAX_SCOPES = 50_000;

/**
 * Where two subjects' permissions can differ: hub-wide, each configured registry, and every registry
 * and package pattern a policy names. A pattern is compared as the literal text: a caller's glob that
 * matches it (`*` matching `*` too) covers everything the pattern covers, so a caller passes only where
 * it holds at least as much; a caller's deny names its own pattern, which is compared at as well.
 */
function scopes(
  policies: readonly Policy[],
  registries: readonly string[],
  grant: Grant,
): Array<Omit<Scope, 'permission'>> {
  const regs = new Set([...registries, ...policies.flatMap((p) => p.registries ?? []), ...(grant.registries ?? [])]);
  const pkgs = new Set([...policies.flatMap((p) => p.packages ?? []), ...(grant.packages ?? [])]);
  // A package is always asked about in a registry (registry routes name both).
  const out: Array<Omit<Scope, 'permission'>> = [{}];
  for (const registry of regs) {
    out.push({ registry });
    for (const pkg of pkgs) out.push({ registry, package: pkg });
  }
  return out;
}

/**
 * No escalation through the admin API: a caller may hand out (as a user's roles, a token, or an allow
 * policy) only what it holds itself, in every scope: hub-wide, per registry and per package, counting
 * every grant the target gets (its roles, and allow policies naming it, its roles or everyone) and every
 * deny the caller is under. An operator cannot mint a token for a user whose only grant is a
 * registry-scoped allow policy, nor for an admin.
 */
export async function assertMayGrant(
  hub: Pick<PluginContext, 'access' | 'registries'>,
  caller: Subject,
  grant: Grant,
  what: string,
): Promise<void> {
  if (caller.break_glass) return;
  const policies = await hub.access.policies.current();
  const decideNow = await hub.access.snapshot();
  const places = scopes(
    policies,
    hub.registries.map((r) => r.name),
    grant,
  );
  if (places.length * ALL_PERMISSIONS.length > MAX_SCOPES)
    throw errors.forbidden(`${what}: too many policy scopes to compare (${places.length}); ask the bootstrap admin`);
  const missing: string[] = [];
  for (const place of places)
    for (const permission of ALL_PERMISSIONS) {
      const s = { permission, ...place };
      if (grant.allows(s) && decideNow({ subject: caller, ...s }).decision !== 'allow') missing.push(describe(s));
    }
  if (missing.length)
    throw errors.forbidden(
      `${what} would grant ${missing.slice(0, 5).join('; ')}${missing.length > 5 ? ` (and ${missing.length - 5} more)` : ''}, which you do not hold`,
    );
}

function describe(s: Scope): string {
  if (s.registry === undefined) return s.permission;
  return `${s.permission} in ${s.registry}${s.package === undefined ? '' : ` for ${s.package}`}`;
}

/** What a subject (a user to be, or a token to be) would hold, as decide() sees it with the policies in force. */
export async function subjectGrant(hub: Pick<PluginContext, 'access'>, holder: Subject): Promise<Grant> {
  const decideNow: (r: AccessRequest) => Decision = await hub.access.snapshot();
  return { allows: (s) => decideNow({ subject: holder, ...s }).decision === 'allow' };
}

/** What a new allow policy would grant to those it names: its permissions wherever its registry and package patterns match. */
export function policyGrant(p: Pick<Policy, 'permissions' | 'registries' | 'packages'>): Grant {
  const everyone: Policy = {
    effect: 'allow',
    permissions: p.permissions,
    registries: p.registries,
    packages: p.packages,
    id: 'new',
  };
  return {
    allows: (s) =>
      decide({ subject: { user_id: null, token_id: null, roles: [] }, ...s }, [everyone], []).decision === 'allow',
    registries: p.registries,
    packages: p.packages,
  };
}
