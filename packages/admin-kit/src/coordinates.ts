import { type Coordinate, errors, type RegistryKind } from '@hub/contract';

export interface RegistryRef {
  name: string;
  kind: RegistryKind;
}

/**
 * The canonical coordinate of docs/coordinates.md for a name (and version, or path) given to the
 * admin API, so a block or unlisting matches what the runtime sees on the request path: the kind's
 * normalizeName (nuget and cargo fold case), then its parse (which also normalises versions).
 * Path-addressed kinds take `path` (or `version`) as the upstream path without a leading slash.
 */
export function canonicalCoordinate(
  reg: RegistryRef,
  packageName: string,
  version: string | undefined,
  path: string | undefined,
): Coordinate {
  if (path !== undefined && version !== undefined) throw errors.badRequest('give version or path, not both');
  if (reg.kind.addressing === 'path') {
    const file = (path ?? version)?.replace(/^\/+/, '');
    if (
      file !== undefined &&
      (file === '' || file.split('/').some((s) => s === '' || s === '.' || s === '..') || /[\0\\]/.test(file))
    )
      throw errors.badRequest(`"${file.slice(0, 100)}" is not an upstream file path`);
    if (packageName !== 'repo')
      throw errors.badRequest(
        `registry ${reg.name} is addressed by file path: package_name is "repo" and the file goes in path`,
      );
    if (file === undefined) return { name: 'repo' };
    // The kind's own spelling (decoded, NFC, re-encoded), the one a request for the same file resolves to.
    const parsed = reg.kind.coordinate.parse(`repo@${file}`);
    if (!parsed?.version) throw errors.badRequest(`"${file.slice(0, 100)}" is not an upstream file path`);
    return parsed;
  }
  if (path !== undefined)
    throw errors.badRequest(
      `path is for path-addressed registries; ${reg.name} is a ${reg.kind.id} registry: use version`,
    );
  const name = reg.kind.coordinate.normalizeName?.(packageName) ?? packageName;
  const parsed = reg.kind.coordinate.parse(
    reg.kind.coordinate.format(version === undefined ? { name } : { name, version }),
  );
  if (!parsed || (parsed.version === undefined) !== (version === undefined))
    throw errors.badRequest(
      `"${reg.kind.coordinate.format(version === undefined ? { name } : { name, version }).slice(0, 120)}" is not a valid ${reg.kind.id} package${version === undefined ? ' name' : ' name and version'}`,
    );
  return parsed;
}
