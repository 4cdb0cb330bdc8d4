import type { Permission } from '@hub/contract';
import { ROLE_PERMISSIONS } from './roles.js';

export interface Subject {
  user_id: string | null;
  token_id: string | null;
  roles: readonly string[];
  /** A token's narrowed permissions; undefined when the token carries the user's full set. */
  token_permissions?: readonly Permission[];
  /**
   * The bootstrap admin's own token (HUB_ADMIN_TOKEN or `[auth] admin_token_sha256`): a break-glass
   * identity that no policy made through the API can deny, so no API call can lock every admin out.
   */
  break_glass?: boolean;
}

export const ANONYMOUS: Subject = { user_id: null, token_id: null, roles: [] };

export interface Policy {
  effect: 'allow' | 'deny';
  permissions: readonly Permission[];
  users?: readonly string[];
  roles?: readonly string[];
  tokens?: readonly string[];
  registries?: readonly string[];
  packages?: readonly string[];
  /** Where the rule came from, for the simulator's answer. */
  id?: string;
  /** `config` (hub.toml) or `api` (the policies table); API deny policies never apply to a break-glass subject. */
  source?: 'config' | 'api';
}

export interface AccessRequest {
  subject: Subject;
  permission: Permission;
  registry?: string;
  package?: string;
}

export interface Decision {
  decision: 'allow' | 'deny';
  rule: string;
  reason: string;
}

const globCache = new Map<string, RegExp>();
/** Whether `value` matches `pattern`, in which `*` matches any characters (access policies, flag sources). */
export function globMatches(pattern: string, value: string): boolean {
  let re = globCache.get(pattern);
  if (!re) {
    re = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
    globCache.set(pattern, re);
  }
  return re.test(value);
}

function applies(p: Policy, r: AccessRequest): boolean {
  if (!p.permissions.includes(r.permission)) return false;
  if (p.effect === 'deny' && p.source === 'api' && r.subject.break_glass) return false;
  const s = r.subject;
  const who = !p.users && !p.roles && !p.tokens;
  const matchesWho =
    who ||
    (p.users?.includes(s.user_id ?? '') ?? false) ||
    (p.roles?.some((x) => s.roles.includes(x)) ?? false) ||
    (p.tokens?.includes(s.token_id ?? '') ?? false);
  if (!matchesWho) return false;
  if (p.registries && !(r.registry && p.registries.some((g) => globMatches(g, r.registry!)))) return false;
  if (p.packages && !(r.package && p.packages.some((g) => globMatches(g, r.package!)))) return false;
  return true;
}

/**
 * The one access decision every route uses (and the simulator runs unchanged).
 * Deny wins: a matching deny policy, then a token's narrowed scope, then any grant (role, allow policy,
 * anonymous grant); with no grant the answer is deny. Deny policies from the API pass over the
 * bootstrap admin's break-glass token; those in hub.toml do not.
 */
export function decide(r: AccessRequest, policies: readonly Policy[], anonymous: readonly Permission[]): Decision {
  policies.forEach((p, i) => (p.id ??= `policy[${i}]`));
  const deny = policies.find((p) => p.effect === 'deny' && applies(p, r));
  if (deny) return { decision: 'deny', rule: deny.id!, reason: `a deny policy covers ${r.permission}` };
  if (r.subject.token_permissions && !r.subject.token_permissions.includes(r.permission))
    return {
      decision: 'deny',
      rule: 'token_scope',
      reason: `the token is narrowed to ${r.subject.token_permissions.join(', ') || 'nothing'}`,
    };
  const role = r.subject.roles.find((x) => ROLE_PERMISSIONS[x]?.includes(r.permission));
  if (role) return { decision: 'allow', rule: `role:${role}`, reason: `role ${role} holds ${r.permission}` };
  const allow = policies.find((p) => p.effect === 'allow' && applies(p, r));
  if (allow) return { decision: 'allow', rule: allow.id!, reason: `an allow policy grants ${r.permission}` };
  if (anonymous.includes(r.permission))
    return { decision: 'allow', rule: 'auth.anonymous', reason: `${r.permission} is granted to every request` };
  return { decision: 'deny', rule: 'default', reason: `nothing grants ${r.permission}` };
}
