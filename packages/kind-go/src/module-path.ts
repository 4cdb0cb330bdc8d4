/**
 * GOPROXY case escaping: an upper-case letter travels as `!` + lower case (`!azure` = `Azure`), so
 * module paths and versions survive case-insensitive file systems.
 */
const ESCAPED = /^[a-z0-9._~!+-]+$/;

export function unescapeElement(s: string): string | null {
  if (!ESCAPED.test(s)) return null;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '!') {
      const next = s[i + 1];
      if (!next || !/[a-z]/.test(next)) return null;
      out += next.toUpperCase();
      i++;
    } else out += c;
  }
  return out;
}

export const escapePath = (s: string): string => s.replace(/[A-Z]/g, (c) => `!${c.toLowerCase()}`);

/** A module path from escaped segments: every element valid, none starting with a dot. */
export function modulePath(segments: readonly string[]): string | null {
  if (segments.length === 0) return null;
  const parts: string[] = [];
  for (const seg of segments) {
    if (seg.startsWith('.') || seg.includes('/')) return null;
    const u = unescapeElement(seg);
    if (u === null) return null;
    parts.push(u);
  }
  return parts.join('/');
}

const VERSION = /^v[0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
export const isGoVersion = (v: string): boolean => v.length <= 200 && VERSION.test(v);

/** Percent-encodes a path segment but keeps RFC 3986 pchars (`@`, `!`, `+`, ...) that sumdb paths use literally. */
export const encodePathSegment = (s: string): string =>
  encodeURIComponent(s).replace(/%(21|24|26|27|28|29|2A|2B|2C|3A|3B|3D|40)/gi, (m) => decodeURIComponent(m));
