import { BUILT_IN_ROLES, PERMISSION_ALLOWS, PERMISSIONS, ROLE_PERMISSIONS } from '@hub/runtime';

const START =
  '<!-- permissions and roles: rendered from @hub/contract (access.ts) by scripts/render-config-docs.mjs -->';
const END = '<!-- end of permissions and roles -->';

/** The permissions table and the built-in roles, as docs/security.md shows them. */
export function renderAccessDocs(): string {
  const rows = PERMISSIONS.map((p) => `| \`${p}\` | ${PERMISSION_ALLOWS[p]} |`);
  const roles = BUILT_IN_ROLES.map((r) => {
    const grants = ROLE_PERMISSIONS[r] ?? [];
    return `\`${r}\` (${grants.length === PERMISSIONS.length ? 'every permission' : grants.map((p) => `\`${p}\``).join(', ')})`;
  });
  return ['| Permission | Allows |', '|---|---|', ...rows, '', `Roles: ${roles.join(', ')}.`].join('\n');
}

/** `doc` with the text between the markers replaced by renderAccessDocs(); throws when the markers are missing. */
export function withAccessDocs(doc: string): string {
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) throw new Error('docs/security.md lacks the permissions-and-roles markers');
  return `${doc.slice(0, from + START.length)}\n${renderAccessDocs()}\n${doc.slice(to)}`;
}
