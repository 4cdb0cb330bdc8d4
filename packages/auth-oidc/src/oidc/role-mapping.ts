/** The hub roles a person's claim values map to, deduplicated in role_map's order; empty when none maps. */
export function mappedRoles(claim: unknown, roleMap: Readonly<Record<string, string | readonly string[]>>): string[] {
  const values = new Set(
    typeof claim === 'string'
      ? [claim]
      : Array.isArray(claim)
        ? claim.filter((v): v is string => typeof v === 'string')
        : [],
  );
  const roles = new Set<string>();
  for (const [value, mapped] of Object.entries(roleMap))
    if (values.has(value)) for (const r of typeof mapped === 'string' ? [mapped] : mapped) roles.add(r);
  return [...roles];
}
