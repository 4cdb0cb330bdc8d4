/**
 * `Requires-Dist` from core metadata (a wheel's `METADATA`, a PEP 658 `.metadata` file, an sdist's
 * `PKG-INFO`): RFC 822 style headers, one dependency per field, `name [extras] (specifier) ; marker`.
 */
import type { SbomDependency } from '@hub/contract';
import { normalizeName } from './names.js';

const MAX_DEPENDENCIES = 5000;

/** The header block's fields named `field` (case-insensitive), continuation lines joined. */
export function headerValues(text: string, field: string): string[] {
  const out: string[] = [];
  const want = field.toLowerCase();
  let current: string | null = null;
  for (const line of text.split(/\r?\n/)) {
    if (line === '') break; // the body (the long description) starts after the first empty line
    if (/^[ \t]/.test(line)) {
      if (current !== null) current += ` ${line.trim()}`;
      continue;
    }
    if (current !== null) out.push(current);
    const colon = line.indexOf(':');
    current = colon > 0 && line.slice(0, colon).trim().toLowerCase() === want ? line.slice(colon + 1).trim() : null;
  }
  if (current !== null) out.push(current);
  return out;
}

/** One `Requires-Dist` value as a dependency: the name normalised, the rest (specifier and marker) as the range. */
export function parseRequirement(value: string): SbomDependency | null {
  const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$/.exec(value);
  if (!m) return null;
  const rest = m[3]!.trim();
  const semi = rest.indexOf(';');
  const spec = (semi === -1 ? rest : rest.slice(0, semi))
    .trim()
    .replace(/^\((.*)\)$/, '$1')
    .trim();
  const marker = semi === -1 ? '' : rest.slice(semi + 1).trim();
  // A dependency only for an extra is optional; the rest are what pip installs.
  const optional = /\bextra\s*==/.test(marker);
  return {
    name: normalizeName(m[1]!),
    range: [spec || '*', marker ? `; ${marker}` : ''].join(''),
    scope: optional ? 'optional' : 'runtime',
  };
}

export function requiresDist(text: string): SbomDependency[] {
  return headerValues(text, 'Requires-Dist')
    .slice(0, MAX_DEPENDENCIES)
    .map(parseRequirement)
    .filter((d): d is SbomDependency => d !== null);
}
