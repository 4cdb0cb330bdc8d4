/**
 * The token a request carries, however its client sends it (packages/runtime/README.md):
 * `Bearer <t>` (npm, terraform), a bare `<t>` (cargo), or Basic whose password is the token
 * (go's .netrc, gem, bundler, apt, maven, NuGet); a Basic user with an empty password counts too.
 */
export function tokenFromAuthorization(header: string | undefined): string | null {
  if (!header) return null;
  const value = header.trim();
  const space = value.indexOf(' ');
  if (space === -1) return value.length > 0 && value.length <= 512 ? value : null;
  const scheme = value.slice(0, space).toLowerCase();
  const rest = value.slice(space + 1).trim();
  if (scheme === 'bearer' || scheme === 'token') return rest || null;
  if (scheme === 'basic') {
    // Buffer.from never throws on bad base64: it decodes what it can, and a garbled token is unknown later.
    const decoded = Buffer.from(rest, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon === -1) return decoded || null;
    const password = decoded.slice(colon + 1);
    return password || decoded.slice(0, colon) || null;
  }
  return null;
}
