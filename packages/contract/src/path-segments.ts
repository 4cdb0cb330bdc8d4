import { errors } from './errors.js';

/**
 * Splits and percent-decodes a raw request path below `/proxy/`. Refuses anything that could name a
 * place it should not: `.`/`..` (also encoded), NUL, backslashes, empty inner segments, bad escapes.
 * A decoded `/` inside one segment is kept (npm's `@scope%2fname`) but its parts obey the same rules.
 */
export function splitSegments(raw: string): string[] {
  const parts = raw.split('/');
  return parts.map((part, i) => {
    if (part === '' && i !== parts.length - 1) throw errors.badRequest('empty path segment');
    let seg: string;
    try {
      seg = decodeURIComponent(part);
    } catch {
      throw errors.badRequest('malformed percent-encoding in the path');
    }
    if (seg.includes('\0') || seg.includes('\\'))
      throw errors.badRequest('the path contains a NUL byte or a backslash');
    // Double encoding (`%252e%252e%252f`): an escape for `.`, `/`, `\` or NUL that survives one decoding would
    // become one at the next server that decodes again.
    if (/%(2e|2f|5c|00)/i.test(seg))
      throw errors.badRequest('the path contains a double-encoded ".", "/", "\\" or NUL');
    for (const piece of seg.split('/')) {
      if (piece === '.' || piece === '..') throw errors.badRequest('the path must not contain "." or ".." segments');
      if (piece === '' && seg !== '' && seg.includes('/')) throw errors.badRequest('empty path segment');
    }
    return seg;
  });
}
